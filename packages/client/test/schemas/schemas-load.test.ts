// validateResponses loads zod and the response schemas with import(): in a
// browser that chunk is a separate fetch, and it can fail. The failure must
// still reach the caller as an FdxError (DESIGN.md: all thrown errors extend
// FdxError), with the loader's error as `cause`.
import { HttpResponse } from "msw";
import { describe, expect, it, vi } from "vitest";
import { createClient, FdxError, FdxResponseError } from "../../src/index.js";
import { BASE, TOKEN, rejectionOf, useMsw } from "../support/http.js";

// Hoisted with vi.mock, which runs before the imports.
const loadFailure = vi.hoisted(() => new TypeError("Failed to fetch dynamically imported module: responses.js"));
// The module the pipeline imports on demand: its import() rejects, as a chunk that cannot be fetched would.
vi.mock("../../src/schemas/responses.js", () => {
  throw loadFailure;
});

const { on } = useMsw();
const client = createClient({ baseUrl: BASE, token: TOKEN, maxRetries: 0, validateResponses: true });

describe("validateResponses when the response schemas cannot be loaded", () => {
  it("rejects with an FdxError whose cause is the failed load", async () => {
    on("get", `${BASE}/consents/v1/c-1`, () => HttpResponse.json({ id: "c-1" }));
    const error = (await rejectionOf(client.consents.get("c-1"))) as FdxError;
    expect(error).toBeInstanceOf(FdxError);
    expect(error).not.toBeInstanceOf(FdxResponseError);
    expect(error.message).toBe("Loading the response schemas failed (see cause)");
    expect(error.code).toBe("schema_load_failed");
    expect(error.toJSON()).toMatchObject({ name: "FdxError", code: "schema_load_failed" });
    expect(error.cause).toBeDefined();
    expect(error.cause).not.toBeInstanceOf(FdxError);
    // vitest reports a throwing factory as its own error, with the factory's error as cause.
    const causes: unknown[] = [];
    for (let c: unknown = error.cause; c instanceof Error; c = c.cause) causes.push(c);
    expect(causes).toContain(loadFailure);
  });

  it("does the same for a statements page", async () => {
    on("get", `${BASE}/statements/v2/p/a`, () => HttpResponse.json({ statements: [] }));
    const error = await rejectionOf(client.statements.list({ providerId: "p", accountId: "a" }).toArray());
    expect(error).toBeInstanceOf(FdxError);
    expect((error as FdxError).message).toBe("Loading the response schemas failed (see cause)");
  });
});
