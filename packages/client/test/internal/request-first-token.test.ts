// Regression: the request path remembers the last token that passed its
// check, to skip scanning a client's string token on every call. Compared
// before the type check, a token function's `undefined` matched the empty
// memory of a fresh SDK and went out as "Bearer undefined". Needs modules no
// other test has used, so it re-imports them (and stays out of the mutation
// run, whose test files share one module graph: see mutation/vitest.config.ts).
import { expect, it, vi } from "vitest";
import { BASE, rejectionOf, useMsw } from "../support/http.js";

const { seen } = useMsw();

it("refuses a token function's undefined as the first token a fresh SDK ever sees", async () => {
  vi.resetModules();
  const fresh = await import("../../src/index.js");
  const client = fresh.createClient({ baseUrl: BASE, token: () => undefined as unknown as string });
  const error = await rejectionOf(client.consents.get("c-1"));
  expect(error).toBeInstanceOf(fresh.FdxValidationError);
  expect((error as InstanceType<typeof fresh.FdxValidationError>).issues).toEqual([
    { path: "token", message: "the token function must return a non-empty string" },
  ]);
  expect(seen).toHaveLength(0);
});
