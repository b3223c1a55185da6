import { expect, it } from "vitest";
import { createClient, FdxNotFoundError } from "../../src/index.js";

// Some servers (e.g. @hono/node-server by default) replace globalThis.Response,
// so what fetch returns is not `instanceof` the Response the SDK sees.
class ForeignResponse {
  readonly #inner: Response;
  constructor(body: string, init: ResponseInit) {
    this.#inner = new Response(body, init);
  }
  get ok() {
    return this.#inner.ok;
  }
  get status() {
    return this.#inner.status;
  }
  get statusText() {
    return this.#inner.statusText;
  }
  get headers() {
    return this.#inner.headers;
  }
  get body() {
    return this.#inner.body;
  }
  arrayBuffer() {
    return this.#inner.arrayBuffer();
  }
  text() {
    return this.#inner.text();
  }
  json() {
    return this.#inner.json();
  }
}

const json = { "Content-Type": "application/json" };

it("accepts a response object from another Response implementation", async () => {
  const fetch = async () => new ForeignResponse(JSON.stringify({ id: "c1", status: "ACTIVE" }), { status: 200, headers: json }) as unknown as Response;
  expect(new ForeignResponse("{}", {}) instanceof Response).toBe(false);
  const client = createClient({ baseUrl: "https://api.test", token: "t", fetch });
  await expect(client.consents.get("c1")).resolves.toEqual({ id: "c1", status: "ACTIVE" });
});

it("maps an error response from another Response implementation", async () => {
  const fetch = async () =>
    new ForeignResponse(JSON.stringify({ code: "NotFound", message: "resource not found" }), { status: 404, headers: json }) as unknown as Response;
  const client = createClient({ baseUrl: "https://api.test", token: "t", fetch });
  const error = await client.maintenance.get("m1").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FdxNotFoundError);
  expect((error as FdxNotFoundError).code).toBe("NotFound");
});
