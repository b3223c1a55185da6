import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { defineConfig } from "tsup";

// tsup's CJS pass over split chunks names the output file itself by its
// absolute path (in a map's `file`, and among its sources): the published
// .cjs.map files then carried the build machine's directory. Each is made
// relative to its map, as the ESM maps already are.
async function relativeSourcemaps(dir = "dist"): Promise<void> {
  for (const name of await readdir(dir)) {
    if (!name.endsWith(".map")) continue;
    const file = path.join(dir, name);
    const map = JSON.parse(await readFile(file, "utf8")) as { file?: string; sources: string[] };
    const relative = (p: string) => (path.isAbsolute(p) ? path.relative(path.dirname(path.resolve(file)), p) : p);
    if (!(map.file && path.isAbsolute(map.file)) && !map.sources.some((source) => path.isAbsolute(source))) continue;
    if (map.file) map.file = relative(map.file);
    map.sources = map.sources.map(relative);
    await writeFile(file, JSON.stringify(map));
  }
}

export default defineConfig({
  entry: {
    index: "src/index.ts",
    // The main entry under the `node` export condition: Node's own transport (src/node/transport.ts).
    "index.node": "src/index.node.ts",
    webhooks: "src/webhooks/index.ts",
    node: "src/node/index.ts",
    auth: "src/auth/index.ts",
  },
  format: ["esm", "cjs"],
  // Shared chunks keep one copy of the error classes per format, so
  // `instanceof` holds across the three entries.
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2022",
  platform: "neutral",
  external: [/^node:/],
  // zod is bundled (its licence is in THIRD_PARTY_LICENSES.md): loaded from
  // node_modules it is some hundred ES modules, which made a cold import of
  // the webhooks entry take ~60 ms instead of ~7 ms — the cold start of every
  // serverless webhook receiver. Nothing of zod is in the public API or types.
  noExternal: ["zod"],
  onSuccess: () => relativeSourcemaps(),
});
