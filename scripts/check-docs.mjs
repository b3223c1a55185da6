#!/usr/bin/env node
// The docs gate: what the READMEs tell a newcomer to type works as written.
// Reads README.md, packages/*/README.md, examples/*/README.md and
// bench/README.md, and for their fenced code blocks:
//
// - ```ts / ```typescript: typechecked under `strict` against the built
//   packages (dist/*.d.ts, through each package's exports), every snippet as
//   its own ES module. Free variables a snippet assumes (`client`,
//   `providerId`, `statement`, `FdxApiError` without its import, vitest's
//   `it`, …) are declared in scripts/check-docs-prelude.d.ts; a snippet's own
//   imports and declarations win over them.
// - ```sh / ```bash: linted (no bare `pnpm`: the Quick start promises only
//   Node and npm, so write `npx -y pnpm@10 …`; no unquoted `./packages/*`
//   glob), and run when marked so (below). Runs from the repository root
//   with bash -euo pipefail, after the packages are built (the build gate
//   of scripts/check.mjs runs before this one; run `pnpm build` first when
//   using it alone).
//
// Mark a block with an HTML comment on the line right above its fence:
//
//   <!-- check-docs: skip -->                 neither typecheck nor lint it
//                                             (a fragment, or a type literal)
//   <!-- check-docs: prelude declare const page: import("@fdxkit/client").StatementPage; -->
//                                             TypeScript put before this snippet only
//   <!-- check-docs: run -->                  run this shell block; it must exit 0
//   <!-- check-docs: run tmp -->              … from a fresh directory inside the
//                                             repository (for commands that write files)
//   <!-- check-docs: background "TEXT" -->    start this shell block (a server), wait
//                                             until its output shows TEXT, stop it
//                                             after the README's last block
//
// In run and background blocks, port 4010 is replaced by a free port, so a
// sandbox another process already holds on 4010 does not break the check. A
// command (one line, or one `&&` part of it) that already ran in an earlier
// block from the same kind of directory (the root, or a fresh one) is not run
// again: the READMEs all start with `npx -y pnpm@10 install`, and once is
// enough to show it works.
//
//   node scripts/check-docs.mjs [--no-run] [FILE.md …]
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const runCommands = !args.includes("--no-run");
const files = args.filter((a) => !a.startsWith("--"));
const readmes = files.length
  ? files.map((f) => path.relative(root, path.resolve(f)))
  : [
      "README.md",
      ...["packages", "examples"].flatMap((dir) =>
        readdirSync(path.join(root, dir))
          .map((name) => `${dir}/${name}/README.md`)
          .filter((f) => existsSync(path.join(root, f))),
      ),
      "bench/README.md",
    ];

/** Fenced blocks of a Markdown file: language, first line of code (1-based), code, marker. */
function blocks(file) {
  const lines = readFileSync(path.join(root, file), "utf8").split("\n");
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const marker = /^\s*<!--\s*check-docs:\s*(.*?)\s*-->\s*$/.exec(lines[i - 1] ?? "")?.[1] ?? "";
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence)) end++;
    const code = lines
      .slice(start, end)
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join("\n");
    found.push({ file, lang: lang.toLowerCase(), line: start + 1, code, marker });
    i = end;
  }
  return found;
}

const all = readmes.flatMap(blocks);
const problems = [];
const where = (b, offset = 0) => `${b.file}:${b.line + offset}`;

// --- Markers that are not understood are a mistake, not a silent skip. ---
const markerForms = [/^$/, /^skip$/, /^prelude\s+[\s\S]+$/, /^run(\s+tmp)?$/, /^background\s+"[^"]+"$/];
for (const b of all) {
  if (!markerForms.some((form) => form.test(b.marker))) problems.push(`${where(b, -2)}: unknown marker "check-docs: ${b.marker}"`);
}

// --- Shell blocks: lint. ---
const shell = all.filter((b) => ["sh", "bash", "shell", "console"].includes(b.lang) && b.marker !== "skip");
for (const b of shell) {
  b.code.split("\n").forEach((text, i) => {
    const command = text.replace(/\s#.*$/, "");
    if (/(^|[;&|(]\s*|\$\(\s*)pnpm\s/.test(command)) {
      problems.push(`${where(b, i)}: bare \`pnpm\` (only Node and npm are promised): write \`npx -y pnpm@10 …\`\n    ${text.trim()}`);
    }
    if (/--filter[= ]\.\/[^\s"']*\*/.test(command)) {
      problems.push(`${where(b, i)}: unquoted glob after --filter (the shell expands it): quote it\n    ${text.trim()}`);
    }
  });
}

// --- TypeScript snippets: one program, strict, against dist. ---
const snippets = all.filter((b) => ["ts", "typescript"].includes(b.lang) && b.marker !== "skip");
const work = path.join(root, "node_modules/.cache/check-docs");
rmSync(work, { recursive: true, force: true });
mkdirSync(path.join(work, "node_modules/@fdxkit"), { recursive: true });
// @fdxkit/* resolve to the packages themselves (their exports, into dist); msw,
// @types/node and the rest come from the root node_modules above this folder.
for (const name of ["client", "mock", "cli", "postgres"]) {
  symlinkSync(path.join(root, "packages", name), path.join(work, "node_modules/@fdxkit", name), "dir");
}
// The database drivers @fdxkit/postgres's README imports are its devDependencies, not the root's.
for (const name of ["pg", "@types/pg", "@electric-sql/pglite"]) {
  mkdirSync(path.dirname(path.join(work, "node_modules", name)), { recursive: true });
  symlinkSync(path.join(root, "packages/postgres/node_modules", name), path.join(work, "node_modules", name), "dir");
}
// Copied beside the snippets, so that its imports resolve as theirs do.
const prelude = path.join(work, "check-docs-prelude.d.ts");
writeFileSync(prelude, readFileSync(path.join(root, "scripts/check-docs-prelude.d.ts")));
const sources = new Map();
snippets.forEach((b, n) => {
  const prelude = b.marker.startsWith("prelude") ? b.marker.replace(/^prelude\s+/, "") + "\n" : "";
  const name = path.join(work, `${n}-${b.file.replace(/[^\w]+/g, "_")}-${b.line}.mts`);
  writeFileSync(name, `${prelude}${b.code}\nexport {};\n`);
  sources.set(name, { block: b, offset: prelude ? prelude.split("\n").length - 1 : 0 });
});
if (snippets.length) {
  const program = ts.createProgram({
    rootNames: [prelude, ...sources.keys()],
    options: {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts", "lib.dom.asynciterable.d.ts"],
      types: ["node"],
      typeRoots: [path.join(root, "node_modules/@types")],
      noEmit: true,
      skipLibCheck: true,
      // Snippets show one use each; unused names are fine.
      noUnusedLocals: false,
      allowUnreachableCode: true,
    },
  });
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n    ");
    const source = diagnostic.file && sources.get(path.resolve(diagnostic.file.fileName));
    if (source && diagnostic.start !== undefined) {
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      const at = line - source.offset;
      const text = source.block.code.split("\n")[at] ?? "";
      problems.push(`${where(source.block, at)}: TS${diagnostic.code}: ${message}\n    ${text.trim()}`);
    } else {
      const file = diagnostic.file ? path.relative(root, diagnostic.file.fileName).replace(/^node_modules\/\.cache\/check-docs\//, "scripts/") : "";
      problems.push(`${file}: TS${diagnostic.code}: ${message}`);
    }
  }
}
console.log(`typechecked ${snippets.length} TypeScript snippets, linted ${shell.length} shell blocks (${readmes.length} READMEs)`);

// --- Marked shell blocks: run. ---
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function startBackground(b, code, until) {
  const child = spawn("bash", ["-euo", "pipefail", "-c", code], { cwd: root, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${until}" within 60 s`)), 60_000);
    const seen = (chunk) => {
      output += chunk;
      if (output.includes(until)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.setEncoding("utf8").on("data", seen);
    child.stderr.setEncoding("utf8").on("data", seen);
    child.on("exit", (status) => {
      clearTimeout(timer);
      reject(new Error(`exited (${status}) before "${until}"`));
    });
  });
  return {
    ready,
    output: () => output,
    stop: () => {
      try {
        process.kill(-child.pid, "SIGTERM"); // its process group: bash, pnpm and the server
      } catch {}
    },
  };
}

/** Commands (trimmed, comments dropped) that already ran in a block that exited 0, by where they ran ("root", "tmp"). */
const alreadyRan = new Set();
const commandOf = (part) => part.replace(/(^|\s)#.*$/, "").trim().replace(/\s+/g, " ");
function withoutRepeats(code, place) {
  return code
    .split("\n")
    .map((line) => {
      const parts = line.split(" && ");
      const left = parts.filter((part) => !commandOf(part) || /^(export|cd) /.test(commandOf(part)) || !alreadyRan.has(`${place} ${commandOf(part)}`));
      if (left.length === parts.length) return line;
      return left.length ? left.join(" && ") : `: already ran: ${commandOf(line)}`;
    })
    .join("\n");
}
function remember(code, place) {
  for (const line of code.split("\n")) for (const part of line.split(" && ")) if (commandOf(part)) alreadyRan.add(`${place} ${commandOf(part)}`);
}

let ran = 0;
if (runCommands) {
  const tmpBase = path.join(root, "node_modules/.cache/check-docs-run");
  for (const file of readmes) {
    const marked = shell.filter((b) => b.file === file && /^(run|background)/.test(b.marker));
    if (!marked.length) continue;
    const port = String(await freePort());
    const background = [];
    try {
      for (const b of marked) {
        const code = b.code.replaceAll("4010", port);
        const started = Date.now();
        if (b.marker.startsWith("background")) {
          const until = /"([^"]+)"/.exec(b.marker)[1];
          const job = startBackground(b, code, until);
          background.push(job);
          try {
            await job.ready;
            console.log(`✔ ${where(b)}: started (${((Date.now() - started) / 1000).toFixed(1)} s)`);
          } catch (error) {
            problems.push(`${where(b)}: background block ${error.message}\n${job.output().trimEnd()}`);
            break;
          }
          continue;
        }
        let cwd = root;
        if (b.marker === "run tmp") {
          mkdirSync(tmpBase, { recursive: true });
          cwd = mkdtempSync(path.join(tmpBase, "block-"));
        }
        const place = cwd === root ? "root" : "tmp";
        const result = spawnSync("bash", ["-euo", "pipefail", "-c", withoutRepeats(code, place)], {
          cwd,
          encoding: "utf8",
          env: process.env,
        });
        if (cwd !== root) rmSync(cwd, { recursive: true, force: true });
        ran++;
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        if (result.status === 0) {
          console.log(`✔ ${where(b)}: ran (${seconds} s)`);
          remember(code, place);
        }
        else {
          problems.push(`${where(b)}: exited ${result.status ?? result.signal} (${seconds} s)\n${b.code}\n--- output:\n${(result.stdout + result.stderr).trimEnd()}`);
        }
      }
    } finally {
      for (const job of background) job.stop();
    }
  }
  rmSync(tmpBase, { recursive: true, force: true });
}

for (const problem of problems) console.log(`✘ ${problem}`);
console.log(problems.length ? `${problems.length} problem(s) in the docs` : `✔ docs: ${snippets.length} snippets typecheck, ${ran} command blocks ran`);
process.exit(problems.length ? 1 : 0);
