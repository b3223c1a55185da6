#!/usr/bin/env node
// The docs gate: what the docs tell a newcomer to type works as written.
// Reads README.md, CONTRIBUTING.md, docs/*.md, packages/*/README.md,
// examples/*/README.md and bench/README.md; checks that every relative link
// (a file, a folder, a `#heading` anchor of a Markdown file, GitHub's slugs)
// resolves; and for their fenced code blocks:
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
//                                             after the file's last block
//   <!-- check-docs: output -->               a sample output (any language): compared
//                                             with the stdout of the nearest run block
//                                             above it in the same file; a stale sample
//                                             fails. In the sample, `…` stands for any
//                                             text within a line, and a line of only `…`
//                                             for any number of lines (run to run
//                                             differences: times, temporary paths)
//
// Skipped TypeScript blocks are counted and listed with --list-skipped (e.g. to
// find the ones to un-skip once an entry they use exists).
//
// In run and background blocks, port 4010 is replaced by a free port, so a
// sandbox another process already holds on 4010 does not break the check. A
// command (one line, or one `&&` part of it) that already ran in an earlier
// block from the same kind of directory (the root, or a fresh one) is not run
// again: the READMEs all start with `npx -y pnpm@10 install`, and once is
// enough to show it works (a block whose output is compared always runs whole).
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
const listSkipped = args.includes("--list-skipped");
const files = args.filter((a) => !a.startsWith("--"));
const readmes = files.length
  ? files.map((f) => path.relative(root, path.resolve(f)))
  : [
      "README.md",
      "CONTRIBUTING.md",
      ...readdirSync(path.join(root, "docs"))
        .filter((name) => name.endsWith(".md"))
        .sort()
        .map((name) => `docs/${name}`),
      ...["packages", "examples"].flatMap((dir) =>
        readdirSync(path.join(root, dir))
          .map((name) => `${dir}/${name}/README.md`)
          .filter((f) => existsSync(path.join(root, f))),
      ),
      "bench/README.md",
    ].filter((f) => existsSync(path.join(root, f)));

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
const markerForms = [/^$/, /^skip$/, /^prelude\s+[\s\S]+$/, /^run(\s+tmp)?$/, /^background\s+"[^"]+"$/, /^output$/];
for (const b of all) {
  if (!markerForms.some((form) => form.test(b.marker))) problems.push(`${where(b, -2)}: unknown marker "check-docs: ${b.marker}"`);
}

// --- Relative links: the file (or folder) exists, and a #fragment is a heading of it. ---
/** GitHub's anchor for a heading (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading) =>
  heading
    .replace(/<[^>]+>/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
const anchorCache = new Map();
/** The anchors a Markdown file offers: its headings' slugs (repeats get -1, -2, …) and explicit ids. */
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const anchors = new Set();
  const seen = new Map();
  let fence = null;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (open) {
      if (!fence) fence = open[1];
      else if (line.trimStart().startsWith(fence)) fence = null;
      continue;
    }
    if (fence) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n ? `${base}-${n}` : base);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  anchorCache.set(file, anchors);
  return anchors;
}
let linksChecked = 0;
for (const file of readmes) {
  let fence = null;
  let inComment = false; // links in an HTML comment are notes for later, not links
  readFileSync(path.join(root, file), "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (inComment || /<!--(?![\s\S]*-->)/.test(line)) {
        inComment = !line.includes("-->");
        return;
      }
      line = line.replace(/<!--[\s\S]*?-->/g, "");
      const open = /^\s*(`{3,}|~{3,})/.exec(line);
      if (open) {
        if (!fence) fence = open[1];
        else if (line.trimStart().startsWith(fence)) fence = null;
        return;
      }
      if (fence) return;
      const text = line.replace(/`[^`]*`/g, "``"); // links inside code spans are code, not links
      const targets = [
        ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
        ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]),
        ...[...text.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]),
      ];
      for (const target of targets) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue; // absolute: not checked here
        linksChecked++;
        const [pathPart, fragment] = target.split("#", 2);
        const resolved = pathPart ? path.resolve(path.dirname(path.join(root, file)), decodeURI(pathPart)) : path.join(root, file);
        if (!existsSync(resolved)) {
          problems.push(`${file}:${i + 1}: broken link: ${target} (no ${path.relative(root, resolved)})`);
          continue;
        }
        if (fragment !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(decodeURIComponent(fragment))) {
          problems.push(`${file}:${i + 1}: broken link: ${target} (no heading "#${fragment}" in ${path.relative(root, resolved)})`);
        }
      }
    });
}
console.log(`checked ${linksChecked} relative links`);

// --- Figures quoted from BENCHMARKS.md: `<!-- figure: TARGET -->TEXT<!-- /figure -->` holds TEXT to the
// "measured" cell of that target's row, so a figure in the prose cannot outlive the benchmark run it came from. ---
const benchmarks = readFileSync(path.join(root, "BENCHMARKS.md"), "utf8");
const measured = new Map();
for (const row of benchmarks.matchAll(/^\|\s*([^|]+?)\s*\|\s*[^|]*\|\s*([^|]+?)\s*\|\s*[✔✘]\s*\|$/gmu)) measured.set(row[1], row[2]);
let figuresChecked = 0;
for (const file of readmes) {
  readFileSync(path.join(root, file), "utf8")
    .split("\n")
    .forEach((line, i) => {
      for (const m of line.matchAll(/<!--\s*figure:\s*(.+?)\s*-->(.*?)<!--\s*\/figure\s*-->/g)) {
        figuresChecked++;
        const cell = measured.get(m[1]);
        if (cell === undefined) problems.push(`${file}:${i + 1}: figure names "${m[1]}", which is no target row of BENCHMARKS.md`);
        else if (m[2].trim() === "" || !cell.includes(m[2].trim()))
          problems.push(`${file}:${i + 1}: stale figure "${m[2]}" for "${m[1]}": BENCHMARKS.md measured ${cell}`);
      }
    });
}
console.log(`checked ${figuresChecked} figures against BENCHMARKS.md`);

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
const skippedSnippets = all.filter((b) => ["ts", "typescript"].includes(b.lang) && b.marker === "skip");
if (listSkipped) for (const b of skippedSnippets) console.log(`skipped: ${where(b)}`);
const work = path.join(root, "node_modules/.cache/check-docs");
rmSync(work, { recursive: true, force: true });
mkdirSync(path.join(work, "node_modules/@fdxkit"), { recursive: true });
// @fdxkit/* resolve to the packages themselves (their exports, into dist); msw,
// @types/node and the rest come from the root node_modules above this folder.
// Every workspace package (client, mock, cli, postgres, …), by its own name.
for (const dir of readdirSync(path.join(root, "packages"))) {
  const manifest = path.join(root, "packages", dir, "package.json");
  if (!existsSync(manifest)) continue;
  const { name } = JSON.parse(readFileSync(manifest, "utf8"));
  if (name?.startsWith("@fdxkit/")) symlinkSync(path.join(root, "packages", dir), path.join(work, "node_modules", name), "dir");
}
// Libraries the guides show that only a package or an example installs (Hono in
// the Hono receiver, pg and PGlite in @fdxkit/postgres): borrowed from there.
const borrowFrom = ["packages", "examples"].flatMap((dir) => readdirSync(path.join(root, dir)).map((name) => path.join(root, dir, name, "node_modules")));
for (const name of ["hono", "pg", "@types/pg", "@electric-sql/pglite"]) {
  if (existsSync(path.join(root, "node_modules", name))) continue;
  const from = borrowFrom.map((modules) => path.join(modules, name)).find((candidate) => existsSync(candidate));
  if (!from) continue;
  mkdirSync(path.dirname(path.join(work, "node_modules", name)), { recursive: true });
  symlinkSync(from, path.join(work, "node_modules", name), "dir");
}
// Copied beside the snippets, so that its imports resolve as theirs do.
const prelude = path.join(work, "check-docs-prelude.d.ts");
writeFileSync(prelude, readFileSync(path.join(root, "scripts/check-docs-prelude.d.ts")));
const sources = new Map();
snippets.forEach((b, n) => {
  const prelude = b.marker.startsWith("prelude") ? `${b.marker.replace(/^prelude\s+/, "")}\n` : "";
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
console.log(
  `typechecked ${snippets.length} TypeScript snippets (${skippedSnippets.length} marked skip), linted ${shell.length} shell blocks (${readmes.length} files)`,
);

// --- Marked shell blocks: run. ---
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// A reader's shell, not pnpm's: under `pnpm check` the npm_* variables pnpm sets make every `npx` in a block
// warn "Unknown env config" on stderr, which a block's `2>&1` would put into its compared output.
const blockEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

function startBackground(code, until) {
  const child = spawn("bash", ["-euo", "pipefail", "-c", code], { cwd: root, stdio: ["ignore", "pipe", "pipe"], detached: true, env: blockEnv });
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
const commandOf = (part) =>
  part
    .replace(/(^|\s)#.*$/, "")
    .trim()
    .replace(/\s+/g, " ");
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

/** Whether `actual` (a command's stdout) matches a sample: `…` is any text within a line, a line of `…` any lines. */
function matchesSample(sample, actual) {
  const want = sample
    .replace(/\s+$/, "")
    .split("\n")
    .map((l) => l.trimEnd());
  const got = actual
    .replace(/\s+$/, "")
    .split("\n")
    .map((l) => l.trimEnd());
  const lineRe = want.map((l) =>
    l.trim() === "…"
      ? null
      : new RegExp(
          `^${l
            .split("…")
            .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
            .join(".*")}$`,
        ),
  );
  const match = (w, g) => {
    if (w === want.length) return g === got.length;
    if (lineRe[w] === null) {
      for (let k = g; k <= got.length; k++) if (match(w + 1, k)) return true;
      return false;
    }
    return g < got.length && lineRe[w].test(got[g]) && match(w + 1, g + 1);
  };
  return match(0, 0);
}

// The gate's own rules, checked on every run: a gate that passed everything would pass silently.
{
  const cases = [
    [slug("Receiving: `node:http` and Express"), "receiving-nodehttp-and-express"],
    [slug("OAuth 2.0 client credentials"), "oauth-20-client-credentials"],
    [slug("Which token?"), "which-token"],
    [matchesSample("a 1\n  time     …\n…", "a 1\n  time     3 ms\nx\ny"), true],
    [matchesSample("a 1\nb …", "a 1\nb 2\n"), true],
    [matchesSample("a 1\nb …", "a 2\nb 2"), false], // a stale line
    [matchesSample("a 1", "a 1\nmore"), false], // output the sample does not show
    [matchesSample("a.c", "abc"), false], // regex characters are literal
  ];
  cases.forEach(([got, want], i) => {
    if (got !== want) problems.push(`scripts/check-docs.mjs: self-check ${i + 1} failed: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  });
}

let ran = 0;
let compared = 0;
if (runCommands) {
  const tmpBase = path.join(root, "node_modules/.cache/check-docs-run");
  for (const file of readmes) {
    const marked = all.filter((b) => b.file === file && ((/^(run|background)/.test(b.marker) && shell.includes(b)) || b.marker === "output"));
    if (!marked.length) continue;
    let lastStdout = null; // of the nearest run block above
    let lastRun = null;
    const port = String(await freePort());
    const background = [];
    try {
      for (const b of marked) {
        const code = b.code.replaceAll("4010", port);
        const started = Date.now();
        if (b.marker === "output") {
          if (lastStdout === null) {
            problems.push(`${where(b, -2)}: "check-docs: output" with no run block above it that ran`);
            continue;
          }
          compared++;
          const sample = b.code.replaceAll("4010", port);
          if (matchesSample(sample, lastStdout)) console.log(`✔ ${where(b)}: sample output matches ${where(lastRun)}`);
          else problems.push(`${where(b)}: stale sample output: ${where(lastRun)} printed\n${lastStdout.trimEnd()}\n--- the sample says:\n${b.code.trimEnd()}`);
          continue;
        }
        lastStdout = null;
        if (b.marker.startsWith("background")) {
          const until = /"([^"]+)"/.exec(b.marker)[1];
          const job = startBackground(code, until);
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
        const next = marked[marked.indexOf(b) + 1];
        const outputCompared = next?.marker === "output";
        const result = spawnSync("bash", ["-euo", "pipefail", "-c", outputCompared ? code : withoutRepeats(code, place)], {
          cwd,
          encoding: "utf8",
          env: blockEnv,
        });
        if (cwd !== root) rmSync(cwd, { recursive: true, force: true });
        ran++;
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        if (result.status === 0) {
          console.log(`✔ ${where(b)}: ran (${seconds} s)`);
          remember(code, place);
          lastStdout = result.stdout;
          lastRun = b;
        } else {
          problems.push(
            `${where(b)}: exited ${result.status ?? result.signal} (${seconds} s)\n${b.code}\n--- output:\n${(result.stdout + result.stderr).trimEnd()}`,
          );
        }
      }
    } finally {
      for (const job of background) job.stop();
    }
  }
  rmSync(tmpBase, { recursive: true, force: true });
}

for (const problem of problems) console.log(`✘ ${problem}`);
console.log(
  problems.length
    ? `${problems.length} problem(s) in the docs`
    : `✔ docs: ${snippets.length} snippets typecheck, ${ran} command blocks ran, ${compared} sample outputs match, ${linksChecked} relative links resolve`,
);
process.exit(problems.length ? 1 : 0);
