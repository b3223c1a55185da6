import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { TYPICAL_USE } from "../bundle-size.mjs";
import path from "node:path";
const client = "/work/wt-actor/packages/client";
const r = await build({ stdin: { contents: TYPICAL_USE, resolveDir: "/work/wt-actor", loader: "js" }, bundle: true, minify: true, splitting: true, outdir: "/virtual-out", format: "esm", platform: "browser", write: false, logLevel: "silent", metafile: true,
  alias: { "@fdxkit/client": path.join(client, "dist/index.js") } });
const outs = r.metafile.outputs;
for (const f of r.outputFiles) console.error(f.path, f.contents.length, gzipSync(f.contents, {level:9}).length);
const main = r.outputFiles.find(f => f.path.endsWith("stdin.js"));
process.stdout.write(main.text);
