// Starts one real PostgreSQL server for every test file of the package
// (test/postgres-server.mjs: Debian's `postgresql` package, initdb in a temp
// dir, a free loopback port). Where no PostgreSQL is installed, the
// real-server tests are skipped — except under CI, where that is a failure
// (.ci/run installs it).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { findPostgresBin, startPostgresServer } from "./postgres-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** `postgres://…` of the test server, or "" when none could be started (tests needing it skip). */
    postgresUrl: string;
    /** Where the test files' in-memory PGlite databases keep their prepared template (made by the first one). */
    pgliteTemplateDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const templateDir = mkdtempSync(path.join(tmpdir(), "fdxkit-postgres-test-template-"));
  project.provide("pgliteTemplateDir", templateDir);
  const removeTemplate = () => rmSync(templateDir, { recursive: true, force: true });
  const bin = findPostgresBin();
  if (!bin) {
    if (process.env.CI) throw new Error("PostgreSQL is not installed (no initdb): install Debian's postgresql package (.ci/run does)");
    console.warn("! PostgreSQL not found (no initdb): the @fdxkit/postgres tests against a real server are skipped");
    project.provide("postgresUrl", "");
    return removeTemplate;
  }
  const server = await startPostgresServer(bin);
  project.provide("postgresUrl", server.url);
  return async () => {
    await server.stop();
    removeTemplate();
  };
}
