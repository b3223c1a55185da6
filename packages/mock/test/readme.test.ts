// The README's variation snippets, run as users would run them: each ```js
// block of "Testing against what real providers do" as its own ES module,
// importing the built @fdxkit/mock and @fdxkit/client.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(path.join(root, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## Testing against what real providers do"), readme.indexOf("## CLI"));
const snippets = [...section.matchAll(/^### `([^`]+)`[^\n]*\n[\s\S]*?^```js\n([\s\S]*?)^```$/gm)].map(([, option = "", code = ""]) => ({ option, code }));
// Inside the package, so `@fdxkit/mock` resolves to itself and `@fdxkit/client` to its dev dependency.
const dir = mkdtempSync(path.join(root, ".readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const built = existsSync(path.join(root, "dist/index.js")) && existsSync(path.join(root, "../client/dist/index.js"));

it("has a runnable snippet for each variation", () => {
  expect(snippets.map((s) => s.option)).toEqual([
    'pagination: "page"',
    "prevLinks: false",
    'documents: "redirect"',
    "latencyMs",
    "faults: { rate, seed }",
    "providerRateLimits",
  ]);
});

const expected: Record<string, RegExp> = {
  'pagination: "page"': /^105$/,
  "prevLinks: false":
    /^50 undefined\n50 http:\/\/127\.0\.0\.1:\d+\/products\/statements\/v2\/sandbox-bank\/ACC-1004\?limit=50\n5 http:\/\/127\.0\.0\.1:\d+\/products\/statements\/v2\/sandbox-bank\/ACC-1004\?cursor=[\w-]+$/,
  'documents: "redirect"': /^http:\/\/127\.0\.0\.1:\d+ application\/pdf \d{3,}$/,
  latencyMs: /^\d+ ms$/,
  "faults: { rate, seed }": /^105 [1-9]\d*$/,
  // 3 pages at 2 per second: the third is refused once and sent again after Retry-After.
  providerRateLimits: /^105 \{"sandbox-bank":\{"requests":4,"limited":1\}\}$/,
};

it.skipIf(!built).each(snippets)("runs the $option snippet", ({ option, code }) => {
  const file = path.join(dir, `${option.replace(/\W+/g, "-")}.mjs`);
  writeFileSync(file, code);
  const result = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 60_000 });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  expect(result.stdout.trim()).toMatch(expected[option] as RegExp);
});
