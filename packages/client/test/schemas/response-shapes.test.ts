// Response shapes the service description leaves open, and malformed ones:
// what subscriptions.list accepts, what a statement page may not be, and the
// links a paginator refuses to follow.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, FdxLinkError, FdxResponseError, FdxValidationError, type Subscription } from "../../src/index.js";
import { startHttp, type RealServer } from "../support/http.js";

const BASE = "https://api.test";
const PRODUCTS = "https://products.test";

const subscription: Subscription = {
  subscriptionId: "sub-1",
  category: "CONSENT",
  type: "CONSENT_REVOKED",
  callbackUrl: "https://hooks.test/fdx",
} as Subscription;

/** A client whose every request gets `reply(url)`; records the URLs asked for. */
function clientAnswering(reply: (url: string) => Response) {
  const urls: string[] = [];
  const client = createClient({
    baseUrl: BASE,
    productsUrl: PRODUCTS,
    token: "t",
    maxRetries: 0,
    fetch: async (request: Request) => {
      urls.push(request.url);
      return reply(request.url);
    },
  });
  return { client, urls };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("subscriptions.list response shapes", () => {
  it.each([
    ["a `subscriptions` wrapper", { subscriptions: [subscription] }],
    ["a wrapper under another name", { items: [subscription], total: 1 }],
    ["a single subscription", subscription],
  ])("accepts %s", async (_, body) => {
    const { client } = clientAnswering(() => Response.json(body));
    await expect(client.subscriptions.list()).resolves.toEqual([subscription]);
  });

  it("reads an empty object as no subscriptions", async () => {
    const { client } = clientAnswering(() => Response.json({}));
    await expect(client.subscriptions.list()).resolves.toEqual([]);
  });

  it("refuses an object that holds no subscriptions", async () => {
    const { client } = clientAnswering(() => Response.json({ status: "ok" }));
    const error = (await rejection(client.subscriptions.list())) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.issues[0]?.message).toMatch(/expected an array of subscriptions/);
  });

  it("refuses a JSON string", async () => {
    const { client } = clientAnswering(() => Response.json("sub-1"));
    await expect(client.subscriptions.list()).rejects.toBeInstanceOf(FdxResponseError);
  });

  it("refuses an empty body", async () => {
    const { client } = clientAnswering(() => new Response(null, { status: 200, headers: { "content-length": "0" } }));
    const error = (await rejection(client.subscriptions.list())) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.issues[0]?.message).toMatch(/empty/);
  });
});

describe("statement pages", () => {
  const params = { providerId: "p", accountId: "a" };

  it("refuses `links` that is not an object", async () => {
    const { client } = clientAnswering(() => Response.json({ statements: [], links: "next" }));
    const error = (await rejection(client.statements.list(params).toArray())) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.issues).toEqual([{ path: "links", message: "must be an object" }]);
  });

  it("refuses a `links.next` that is not an object with an href", async () => {
    const { client } = clientAnswering(() => Response.json({ statements: [], links: { next: "/statements?page=2" } }));
    const error = (await rejection(client.statements.list(params).toArray())) as FdxResponseError;
    expect(error.issues).toEqual([{ path: "links.next", message: "must be an object with an href" }]);
  });

  it.each([-1, 1.5, Number.POSITIVE_INFINITY])("toArray({ max: %s }) throws before any request", async (max) => {
    const { client, urls } = clientAnswering(() => Response.json({ statements: [] }));
    const error = await client.statements
      .list(params)
      .toArray({ max })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([{ path: "max", message: "must be an integer >= 0" }]);
    expect(urls).toEqual([]);
  });

  it("toArray({ max: 0 }) sends nothing", async () => {
    const { client, urls } = clientAnswering(() => Response.json({ statements: [] }));
    await expect(client.statements.list(params).toArray({ max: 0 })).resolves.toEqual([]);
    expect(urls).toEqual([]);
  });
});

describe("links the paginator refuses", () => {
  const params = { providerId: "p", accountId: "a" };
  const firstPage = (href: string) => () => Response.json({ statements: [], links: { next: { href } } });

  it("an href with credentials in it, though on the same origin", async () => {
    const { client, urls } = clientAnswering(firstPage(`https://user:pw@products.test/statements/v2/p/a?page=2`));
    const error = await rejection(client.statements.list(params).toArray());
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as Error).message).toMatch(/credentials/);
    expect(urls).toHaveLength(1);
  });

  it("an href that is not a URL", async () => {
    const { client, urls } = clientAnswering(firstPage("https://[not-a-host/x"));
    const error = await rejection(client.statements.list(params).toArray());
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as Error).message).toMatch(/not a valid URL/);
    expect(urls).toHaveLength(1);
  });

  it("quotes a very long href shortened in the message, and whole in the error", async () => {
    const href = `https://elsewhere.test/${"x".repeat(500)}`;
    const { client } = clientAnswering(firstPage(href));
    const error = (await rejection(client.statements.list(params).toArray())) as FdxLinkError;
    expect(error).toBeInstanceOf(FdxLinkError);
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toContain("…");
    expect(error.href).toBe(href);
  });
});

// A hostile server on 127.0.0.1 that answers 200 with JSON of the wrong kind:
// every method whose answer is an object refuses it, validateResponses or not.
describe("a 2xx JSON answer of the wrong kind", () => {
  let body = "";
  let server: RealServer;
  beforeAll(async () => {
    server = await startHttp((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(body));
  });
  afterAll(() => server.close());

  const input = { category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://hooks.test/fdx" } as const;
  const calls = {
    "consents.get": (c: ReturnType<typeof createClient>) => c.consents.get("c-1"),
    "maintenance.get": (c: ReturnType<typeof createClient>) => c.maintenance.get("m-1"),
    "subscriptions.get": (c: ReturnType<typeof createClient>) => c.subscriptions.get("s-1"),
    "subscriptions.create": (c: ReturnType<typeof createClient>) => c.subscriptions.create(input),
    "subscriptions.update": (c: ReturnType<typeof createClient>) => c.subscriptions.update("s-1", { callbackEmail: "a@b.test" }),
    "subscriptions.sendTestEvent": (c: ReturnType<typeof createClient>) => c.subscriptions.sendTestEvent("s-1"),
  };

  describe.each([false, true])("validateResponses: %s", (validateResponses) => {
    it.each(Object.keys(calls) as (keyof typeof calls)[])("%s refuses a string, an array, a number, null and true", async (name) => {
      const client = createClient({ baseUrl: server.url, token: "t", maxRetries: 0, validateResponses });
      for (const wrong of ['"hello"', "[]", '[{"consentId":"c-1"}]', "42", "null", "true"]) {
        body = wrong;
        const error = await calls[name](client).catch((e: unknown) => e);
        expect(error, `${name} answered ${wrong}`).toBeInstanceOf(FdxResponseError);
        expect((error as FdxResponseError).status).toBe(200);
      }
    });
  });
});
