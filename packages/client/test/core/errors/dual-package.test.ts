// The ESM and CJS builds hold separate copies of the error classes; `instanceof`
// must still hold across them (an app may load one copy, a dependency the other).
// This test builds nothing: it runs when the test command has built dist/ first.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const cjsPath = fileURLToPath(new URL("../../../dist/index.cjs", import.meta.url));
const esmPath = fileURLToPath(new URL("../../../dist/index.js", import.meta.url));
const built = existsSync(cjsPath) && existsSync(esmPath);

type Errors = typeof import("../../../src/index.js");

describe.skipIf(!built)("instanceof across the ESM and CJS builds", () => {
  const load = async () => {
    const cjs = createRequire(import.meta.url)(cjsPath) as Errors;
    const esm = (await import(pathToFileURL(esmPath).href)) as Errors;
    return { cjs, esm };
  };

  it("loads two distinct copies of the classes", async () => {
    const { cjs, esm } = await load();
    expect(cjs.FdxError).not.toBe(esm.FdxError);
  });

  it("an error from the CJS build is an instance of the ESM classes, and back", async () => {
    const { cjs, esm } = await load();
    const init = { status: 429, code: "1207", message: "Too Many Requests", debugMessage: undefined, body: {}, headers: {}, method: "GET", url: "https://x.test/" };
    const fromCjs = new cjs.FdxRateLimitError({ ...init, retryAfterMs: 1000 });
    const fromEsm = new esm.FdxTimeoutError("timed out");
    expect(fromCjs).toBeInstanceOf(esm.FdxRateLimitError);
    expect(fromCjs).toBeInstanceOf(esm.FdxApiError);
    expect(fromCjs).toBeInstanceOf(esm.FdxError);
    expect(fromCjs).not.toBeInstanceOf(esm.FdxConnectionError);
    expect(fromEsm).toBeInstanceOf(cjs.FdxTimeoutError);
    expect(fromEsm).toBeInstanceOf(cjs.FdxConnectionError);
    expect(fromEsm).not.toBeInstanceOf(cjs.FdxApiError);
    expect(esm.FdxApiError.is(fromCjs)).toBe(true);
  });

  it("errors the CJS client throws are recognised by the ESM classes", async () => {
    const { cjs, esm } = await load();
    const client = cjs.createClient({ baseUrl: "https://x.test", token: "t" });
    const error = await client.subscriptions.get("..").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(esm.FdxValidationError);
  });
});
