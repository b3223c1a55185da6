#!/usr/bin/env node
// `pnpm test:mutation`: Stryker over the client's core (stryker.config.mjs),
// then MUTATION.md written from Stryker's own JSON report. Fails when the
// score is under 85 % or a file is under 80 %.
//
// A run changes no tracked file: it starts from the committed incremental
// record (mutation/stryker-incremental.json), but Stryker updates a copy in
// reports/mutation/, and the summary goes to reports/mutation/MUTATION.md.
// `--record` writes both back to the tracked files, for a commit that means
// to update them.
//
// A whole run takes hours on two cores, and Stryker writes nothing until it
// ends, so it can also run in parts: `--part NAMES` mutates only the globs of
// stryker.config.mjs whose path holds one of the comma-separated NAMES (a name
// that is a file's path, packages/client/src/….ts, is that file alone), and
// keeps that part's report in reports/mutation/parts/. `--merge` adds up the
// parts kept there (a file in two parts counts once, from the later run) and
// writes the summary of them all, as a whole run would.
//
//   node scripts/mutation.mjs            run Stryker (incremental), then write reports/mutation/MUTATION.md
//   node scripts/mutation.mjs --record   the same, into MUTATION.md and mutation/stryker-incremental.json
//   node scripts/mutation.mjs --report   only write the summary from the last report (with --record: MUTATION.md)
//   node scripts/mutation.mjs --part /internal/,/node/   one part, kept in reports/mutation/parts/
//   node scripts/mutation.mjs --merge [--record]         the summary of the parts kept
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const reportFile = path.join(root, "reports/mutation/mutation.json");
const partsDir = path.join(root, "reports/mutation/parts");
const MIN_TOTAL = 85;
const MIN_FILE = 80;

const argv = process.argv.slice(2);
const partAt = argv.indexOf("--part");
const part = partAt === -1 ? undefined : argv[partAt + 1];
if (partAt !== -1 && !part) {
  console.error("--part takes comma-separated path fragments, e.g. --part /internal/,/node/");
  process.exit(2);
}
const OWN_FLAGS = new Set(["--report", "--record", "--merge"]);
const record = argv.includes("--record");
const merge = argv.includes("--merge");
const trackedIncremental = path.join(root, "mutation/stryker-incremental.json");
const scratchIncremental = path.join(root, "reports/mutation/stryker-incremental.json");
// A part's summary is never the record: it speaks of some files only.
const summaryFile = record && !part ? path.join(root, "MUTATION.md") : path.join(root, "reports/mutation/MUTATION.md");

/** The `*` and `{a,b}` globs of stryker.config.mjs as a pattern over the report's relative paths. */
function globPattern(glob) {
  const source = glob
    .replace(/[.+^$()|[\]\\]/g, "\\$&")
    .replace(/\*/g, "[^/]*")
    .replace(/\{([^}]*)\}/g, (_, list) => `(?:${list.split(",").join("|")})`);
  return new RegExp(`^${source}$`);
}

let seconds;
/** With --merge, the globs of stryker.config.mjs that no part kept covers. */
let unmeasured = [];
if (!argv.includes("--report") && !merge) {
  const started = Date.now();
  const args = ["run", ...argv.filter((arg, i) => !OWN_FLAGS.has(arg) && i !== partAt && i !== partAt + 1)];
  if (!record || part) {
    // Start from the committed record; Stryker rewrites the copy, never the tracked file.
    mkdirSync(path.dirname(scratchIncremental), { recursive: true });
    if (existsSync(trackedIncremental)) copyFileSync(trackedIncremental, scratchIncremental);
    args.push("--incrementalFile", path.relative(root, scratchIncremental));
  }
  const env = part ? { ...process.env, FDXKIT_MUTATE_PART: part } : process.env;
  const run = spawnSync(path.join(root, "node_modules/.bin/stryker"), args, { cwd: root, stdio: "inherit", env });
  seconds = Math.round((Date.now() - started) / 1000);
  if (run.status !== 0) {
    console.error(`stryker run failed (exit ${run.status ?? run.signal})`);
    process.exit(1);
  }
  if (part) {
    const slug = part.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "");
    // A list of files makes a name longer than a file system takes: shortened, with a hash of the whole.
    const name = slug.length <= 80 ? slug : `${slug.slice(0, 60)}-${createHash("sha256").update(part).digest("hex").slice(0, 12)}`;
    mkdirSync(partsDir, { recursive: true });
    copyFileSync(reportFile, path.join(partsDir, `${name}.json`));
    copyFileSync(scratchIncremental, path.join(partsDir, `${name}.incremental.json`));
    writeFileSync(path.join(partsDir, `${name}.seconds`), `${seconds}\n`);
    // Stryker's report also holds the files outside the part, as the record last had them: only the part's count.
    writeFileSync(path.join(partsDir, `${name}.part`), `${part}\n`);
  }
}

if (merge) {
  // Oldest first, so that a file in two parts keeps its later result.
  const names = existsSync(partsDir) ? readdirSync(partsDir).filter((f) => /^[^.]+\.json$/.test(f)) : [];
  names.sort((a, b) => statSync(path.join(partsDir, a)).mtimeMs - statSync(path.join(partsDir, b)).mtimeMs);
  if (names.length === 0) {
    console.error(`--merge: no parts in ${path.relative(root, partsDir)} (run --part first)`);
    process.exit(2);
  }
  const config = await import(new URL("../stryker.config.mjs", import.meta.url).href);
  const union = (kind) => {
    let merged;
    for (const name of names) {
      const file = path.join(partsDir, kind === "report" ? name : name.replace(/\.json$/, ".incremental.json"));
      const one = JSON.parse(readFileSync(file, "utf8"));
      const fragments = readFileSync(path.join(partsDir, name.replace(/\.json$/, ".part")), "utf8")
        .trim()
        .split(",");
      // A part owns the files its globs match, so a fragment such as `auth/{` can name one glob of a folder.
      const globs = config.partGlobs(fragments).map(globPattern);
      const files = Object.fromEntries(Object.entries(one.files).filter(([f]) => globs.some((glob) => glob.test(f))));
      merged = merged ? { ...merged, files: { ...merged.files, ...files }, testFiles: { ...merged.testFiles, ...one.testFiles } } : { ...one, files };
    }
    return merged;
  };
  writeFileSync(reportFile, JSON.stringify(union("report")));
  writeFileSync(scratchIncremental, JSON.stringify(union("incremental")));
  if (record) copyFileSync(scratchIncremental, trackedIncremental);
  seconds = names.reduce((sum, name) => {
    const file = path.join(partsDir, name.replace(/\.json$/, ".seconds"));
    return sum + (existsSync(file) ? Number(readFileSync(file, "utf8")) : 0);
  }, 0);
  console.log(`merged ${names.length} part(s): ${names.map((n) => n.replace(/\.json$/, "")).join(", ")}`);
  const fragments = names.flatMap((n) =>
    readFileSync(path.join(partsDir, n.replace(/\.json$/, ".part")), "utf8")
      .trim()
      .split(","),
  );
  unmeasured = config.GLOBS.filter((glob) => !config.partGlobs(fragments).includes(glob));
}

const report = JSON.parse(readFileSync(reportFile, "utf8"));
const DETECTED = new Set(["Killed", "Timeout"]);
const UNDETECTED = new Set(["Survived", "NoCoverage"]);

const files = [];
const survivors = [];
const ignored = new Map();
for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const row = { file: path.relative(path.join(root, "packages/client/src"), path.resolve(root, file)), detected: 0, undetected: 0, ignored: 0 };
  for (const m of mutants) {
    if (DETECTED.has(m.status)) row.detected++;
    else if (UNDETECTED.has(m.status)) {
      row.undetected++;
      survivors.push({ file: row.file, line: m.location.start.line, mutator: m.mutatorName, replacement: m.replacement, status: m.status });
    } else if (m.status === "Ignored") {
      row.ignored++;
      const reason = /static/i.test(m.statusReason ?? "") ? "static (runs once at module load; `ignoreStatic`)" : (m.statusReason ?? "ignored");
      ignored.set(reason, (ignored.get(reason) ?? 0) + 1);
    }
  }
  files.push(row);
}

const score = (r) => (r.detected + r.undetected === 0 ? 100 : (100 * r.detected) / (r.detected + r.undetected));
const total = files.reduce((t, r) => ({ detected: t.detected + r.detected, undetected: t.undetected + r.undetected, ignored: t.ignored + r.ignored }), {
  detected: 0,
  undetected: 0,
  ignored: 0,
});
const low = files.filter((r) => score(r) < MIN_FILE);
const pass = score(total) >= MIN_TOTAL && low.length === 0;

const require = createRequire(import.meta.url);
const version = (name) => require(`${name}/package.json`).version;
const byMutator = new Map();
for (const s of survivors) byMutator.set(s.mutator, (byMutator.get(s.mutator) ?? 0) + 1);
const pct = (n) => `${n.toFixed(1)} %`;

const md = `# Mutation testing

Written by \`pnpm test:mutation\` (scripts/mutation.mjs) from Stryker's JSON report (\`reports/mutation/mutation.json\`, not committed; the HTML report sits beside it). Do not edit by hand.

- Date: ${new Date().toISOString().slice(0, 10)}
- Stryker ${version("@stryker-mutator/core")}, vitest runner ${version("@stryker-mutator/vitest-runner")}, vitest ${version("vitest")}, Node ${process.versions.node}
- Config: \`stryker.config.mjs\` — the client's Node tests (\`mutation/vitest.config.ts\`), \`coverageAnalysis: "perTest"\`, \`concurrency: 2\`, incremental (\`mutation/stryker-incremental.json\`, committed)${seconds === undefined ? "" : `\n- ${merge ? "These parts' runs" : "This run"}: ${Math.floor(seconds / 60)} min ${seconds % 60} s`}${unmeasured.length ? `\n- **Not in the parts merged here, so not in this score:** ${unmeasured.map((g) => `\`${g}\``).join(", ")}` : ""}

**Score: ${pct(score(total))}** (${total.detected} of ${total.detected + total.undetected} mutants detected) — ${pass ? "meets" : "**does not meet**"} the bar of ≥ ${MIN_TOTAL} % overall and no file under ${MIN_FILE} %. ${total.ignored} mutants are not counted (below).

| file (packages/client/src) | score | detected | undetected | not counted |
|---|---:|---:|---:|---:|
${files.map((r) => `| ${r.file} | ${score(r) < MIN_FILE ? `**${pct(score(r))}**` : pct(score(r))} | ${r.detected} | ${r.undetected} | ${r.ignored} |`).join("\n")}
| **all** | **${pct(score(total))}** | ${total.detected} | ${total.undetected} | ${total.ignored} |

## Undetected mutants by kind

| mutator | undetected |
|---|---:|
${[...byMutator]
  .sort((a, b) => b[1] - a[1])
  .map(([m, n]) => `| ${m} | ${n} |`)
  .join("\n")}

## Not counted

${
  [...ignored]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `- ${n} × ${reason}`)
    .join("\n") || "- none"
}

## Each undetected mutant

${survivors.map((s) => `- \`${s.file}:${s.line}\` ${s.mutator}${s.status === "NoCoverage" ? " (no test runs it)" : ""}: \`${s.replacement.replace(/\s+/g, " ").replace(/`/g, "'").slice(0, 100)}\``).join("\n") || "- none"}
`;
mkdirSync(path.dirname(summaryFile), { recursive: true });
writeFileSync(summaryFile, md);
console.log(
  `${path.relative(root, summaryFile)}: ${pct(score(total))} of ${total.detected + total.undetected} mutants detected; ${low.length} file(s) under ${MIN_FILE} %.`,
);
process.exit(pass ? 0 : 1);
