// Shared by the package's tests: the real server's URL, connection rows, and
// the check that an error holds no secret anywhere a log could show it.
import { randomBytes } from "node:crypto";
import util from "node:util";
import type { PGlite } from "@electric-sql/pglite";
import { expect, inject } from "vitest";
import { type Connection, openPGlite } from "../src/index.js";

/** `postgres://…` of the server test/global-setup.ts started, or "" (then the real-server tests skip). */
export const postgresUrl = inject("postgresUrl");

/**
 * An in-memory PGlite database, opened as apps' tests are told to open one
 * (openPGlite: from the prepared template, without an initdb per file). Typed
 * as the PGlite it is, for the tests that use more of it than a store does.
 */
export async function memoryPGlite(): Promise<PGlite> {
  return (await openPGlite(undefined, { templateDir: inject("pgliteTemplateDir") })) as unknown as PGlite;
}

/** A table name no other test uses. */
export function uniqueTable(prefix = "t"): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** A connection with distinctive token values (so a leak is findable), version 1 unless given. */
export function connection(id: string, overrides: Partial<Connection> = {}): Connection {
  return {
    id,
    status: "active",
    idToken: `id-token-${id}-secret`,
    refreshToken: `refresh-token-${id}-secret`,
    expiresAt: 1_900_000_000_000,
    accessToken: "",
    accessTokenExpiresAt: 0,
    accounts: ["acc-1", "acc-2"],
    subject: "user-sub",
    connector: "mikomo",
    consentId: `consent-${id}`,
    issuer: "https://idp.example",
    clientId: "client-1",
    createdAt: 1_800_000_000_000,
    updatedAt: 1_800_000_000_000,
    version: 1,
    ...overrides,
  };
}

/** Every rendering a log could make of `error` (cause chain included) holds none of `secrets`. */
export function expectNoSecrets(error: unknown, secrets: readonly string[]): void {
  const e = error as Error;
  const renderings = [String(error), e.message, e.stack ?? "", JSON.stringify(error), util.inspect(error, { depth: Infinity, showHidden: true })];
  for (const secret of secrets) for (const text of renderings) expect(text).not.toContain(secret);
}
