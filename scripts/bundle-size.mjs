// How the project measures a browser bundle, shared by the size gate
// (scripts/check-bundle.mjs) and the benchmarks (bench/src/bundle.mjs):
// esbuild, browser platform, minified ESM with code splitting; gzip -9 of
// what loads up front (the entry chunk and every chunk it imports
// statically), with chunks behind import() reported apart.
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import path from "node:path";

/** What a typical app does with the main entry: a client, statements paged and downloaded, errors branched on. */
export const TYPICAL_USE = `
import { createClient, FdxApiError, FdxErrorCode } from "@fdxkit/client";
const client = createClient({ baseUrl: location.origin, token: () => sessionStorage.getItem("t") ?? "" });
export async function run() {
  try {
    for await (const s of client.statements.list({ providerId: "p", accountId: "a", limit: 50 })) {
      const doc = await client.statements.download(s);
      document.body.append(URL.createObjectURL(await doc.blob()));
    }
  } catch (e) {
    if (e instanceof FdxApiError && e.code === FdxErrorCode.Unauthorized) location.reload();
    throw e;
  }
}
`;

/**
 * Bundles `entry` (source text, or `{ file }`) and measures it.
 * @param {string | { file: string }} entry
 * @param {{ resolveDir: string, alias?: Record<string, string> }} options
 */
export async function measureEntry(entry, { resolveDir, alias }) {
  const result = await build({
    ...(typeof entry === "string" ? { stdin: { contents: entry, resolveDir, loader: "js" } } : { entryPoints: [entry.file] }),
    bundle: true,
    minify: true,
    splitting: true,
    outdir: "/virtual-out",
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "silent",
    ...(alias ? { alias } : {}),
  });
  const outputs = result.metafile.outputs;
  const files = new Map(result.outputFiles.map((f) => [path.relative(process.cwd(), f.path), f.contents]));
  const entryOut = Object.keys(outputs).find((o) => outputs[o].entryPoint);
  const upFront = new Set();
  const visit = (o) => {
    if (upFront.has(o)) return;
    upFront.add(o);
    for (const i of outputs[o].imports) if (i.kind === "import-statement" && outputs[i.path]) visit(i.path);
  };
  visit(entryOut);
  const js = (list) => list.filter((o) => o.endsWith(".js"));
  const min = (list) => list.reduce((n, o) => n + (files.get(o)?.length ?? 0), 0);
  const gz = (list) => list.reduce((n, o) => n + gzipSync(files.get(o) ?? new Uint8Array(), { level: 9 }).length, 0);
  const initial = js([...upFront]);
  const lazy = js(Object.keys(outputs).filter((o) => !upFront.has(o)));
  const nodeBuiltins = Object.keys(result.metafile.inputs).filter((i) => /(^|\/)node:|^(fs|path|stream|http|crypto)$/.test(i));
  return { minBytes: min(initial), gzipBytes: gz(initial), lazyGzipBytes: gz(lazy), nodeBuiltins };
}
