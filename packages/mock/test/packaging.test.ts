import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";

// msw is an optional peer: `@fdxkit/mock/server` must run where it is not installed.
const dist = fileURLToPath(new URL("../dist/", import.meta.url));

function runWithoutMsw(entry: string): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "fdxkit-mock-"));
  writeFileSync(
    path.join(dir, "hooks.mjs"),
    `export async function resolve(specifier, context, next) {
      if (specifier === "msw" || specifier.startsWith("msw/")) {
        throw Object.assign(new Error("Cannot find package 'msw'"), { code: "ERR_MODULE_NOT_FOUND" });
      }
      return next(specifier, context);
    }`,
  );
  writeFileSync(
    path.join(dir, "register.mjs"),
    `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(path.join(dir, "hooks.mjs")).href)});`,
  );
  writeFileSync(
    path.join(dir, "main.mjs"),
    `const { startMockServer } = await import(${JSON.stringify(pathToFileURL(path.join(dist, entry)).href)});
    const mock = await startMockServer();
    const response = await fetch(mock.baseUrl + "/consents/v1/consent-active-1", { headers: { Authorization: "Bearer " + mock.token } });
    console.log(response.status);
    await mock.close();`,
  );
  const result = spawnSync(process.execPath, ["--import", pathToFileURL(path.join(dir, "register.mjs")).href, path.join(dir, "main.mjs")], {
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

it.skipIf(!existsSync(path.join(dist, "server.js")))("starts the server from @fdxkit/mock/server without msw installed", () => {
  expect(runWithoutMsw("server.js")).toMatchObject({ status: 0, stdout: "200" });
  // The same hook does break the full entry, so the check above means something.
  expect(runWithoutMsw("index.js").stderr).toContain("Cannot find package 'msw'");
});
