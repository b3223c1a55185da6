#!/usr/bin/env node
// `pnpm lint:specs`: Redocly's lint of the three OpenAPI descriptions, minus
// Redocly CLI's "Node.js 20 support is ending" box.
//
// Redocly CLI 2.x prints that box on every run under Node 20, with no switch
// to turn it off: lib/index.js calls `logger.info(banner)` whenever
// `semver.major(process.version) === 20`; neither REDOCLY_SUPPRESS_NOTIFICATIONS,
// REDOCLY_SUPPRESS_UPDATE_NOTICE, CI nor redocly.yaml reaches it (checked in
// 2.77.0 and in its source). This project supports Node 20, so the box is
// noise in every check log. Only that box is dropped: every other line, and
// the exit code, are Redocly's. When a Redocly release adds a switch, use it
// here instead.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const specs = ["specs/notifications.yaml", "specs/consents.yaml", "specs/statements.yaml"];
const child = spawn(path.join(root, "node_modules/.bin/redocly"), ["lint", ...specs, ...process.argv.slice(2)], {
  cwd: root,
  stdio: ["ignore", "inherit", "pipe"],
});

/** Drops a ╔…╚ box whose text mentions the Node.js 20 deprecation; passes the rest through. */
let box = null;
let pending = "";
function filter(text, flush = false) {
  pending += text;
  // Whole lines only, except at the end, when whatever is left goes out as it is.
  const lines = pending.split(/(?<=\n)/);
  pending = !flush && !lines.at(-1)?.endsWith("\n") ? lines.pop() : "";
  let out = "";
  for (const line of lines) {
    if (box) {
      box.push(line);
      if (line.includes("╚")) {
        if (!box.some((l) => l.includes("Node.js 20 support is ending"))) out += box.join("");
        box = null;
      }
    } else if (line.includes("╔")) box = [line];
    else out += line;
  }
  if (flush && box) out += box.join("");
  if (out) process.stderr.write(out);
}
child.stderr.setEncoding("utf8").on("data", (chunk) => filter(chunk));
child.on("close", (code, signal) => {
  filter("", true);
  process.exit(code ?? (signal ? 1 : 0));
});
