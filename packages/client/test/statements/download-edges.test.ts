// statements.download at the edges: unusable `accept` values and targets,
// responses without a media type, without a body or with an encoded body, and
// bodies that fail or are cancelled while streaming.
import { describe, expect, it } from "vitest";
import { createClient, FdxConnectionError, FdxTimeoutError, FdxValidationError } from "../../src/index.js";

const PRODUCTS = "https://products.test";
const target = { providerId: "p", accountId: "a", statementId: "s-1" };

function clientAnswering(reply: (request: Request) => Response) {
  const requests: Request[] = [];
  const client = createClient({
    baseUrl: PRODUCTS,
    token: "t",
    maxRetries: 0,
    fetch: async (request: Request) => {
      requests.push(request);
      return reply(request);
    },
  });
  return { client, requests };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe("checks before any request", () => {
  it.each(["", "   "])("accept %j is refused", async (accept) => {
    const { client, requests } = clientAnswering(() => new Response("x"));
    await expect(client.statements.download(target, { accept })).rejects.toBeInstanceOf(FdxValidationError);
    expect(requests).toEqual([]);
  });

  it("an accept value that is no valid header value is refused", async () => {
    const { client, requests } = clientAnswering(() => new Response("x"));
    const error = await client.statements.download(target, { accept: "application/pdf\r\nX-Evil: 1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues[0]?.path).toBe("accept");
    expect(requests).toEqual([]);
  });

  it.each([42, null])("a target %s is refused", async (bad) => {
    const { client, requests } = clientAnswering(() => new Response("x"));
    await expect(client.statements.download(bad as never)).rejects.toBeInstanceOf(FdxValidationError);
    expect(requests).toEqual([]);
  });
});

describe("the document", () => {
  it("is application/octet-stream when the server names no media type", async () => {
    const { client } = clientAnswering(
      () => new Response(new Blob([bytes("%PDF-")]).stream(), { headers: { "content-length": "5" } }),
    );
    const document = await client.statements.download(target);
    expect(document.contentType).toBe("application/octet-stream");
    expect(document.contentLength).toBe(5);
    expect(new TextDecoder().decode(await document.arrayBuffer())).toBe("%PDF-");
  });

  it("has no contentLength when the body was content-encoded (fetch decodes it)", async () => {
    const { client } = clientAnswering(
      () => new Response("%PDF-", { headers: { "content-type": "application/pdf", "content-encoding": "gzip", "content-length": "3" } }),
    );
    const document = await client.statements.download(target);
    expect(document.contentLength).toBeUndefined();
    await document.body.cancel();
  });

  it("keeps contentLength with an identity content-encoding", async () => {
    const { client } = clientAnswering(
      () => new Response("%PDF-", { headers: { "content-encoding": "Identity", "content-length": "5" } }),
    );
    expect((await client.statements.download(target)).contentLength).toBe(5);
  });

  it("is empty when the response has no body", async () => {
    const { client } = clientAnswering(() => new Response(null, { status: 200 }));
    expect((await (await client.statements.download(target)).arrayBuffer()).byteLength).toBe(0);
    expect((await (await client.statements.download(target)).blob()).size).toBe(0);
  });
});

describe("streaming failures", () => {
  function failingAfterOneChunk(reason: unknown) {
    return () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(bytes("%PDF-1.7"));
          },
          pull(controller) {
            controller.error(reason);
          },
        }),
        { headers: { "content-type": "application/pdf" } },
      );
  }

  it("a body cut with a non-Error reason is an FdxConnectionError naming it", async () => {
    const { client } = clientAnswering(failingAfterOneChunk("socket closed"));
    const document = await client.statements.download(target);
    const error = await document.arrayBuffer().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect((error as Error).message).toContain("socket closed");
  });

  it("an FdxError from the body stream reaches the caller as it is", async () => {
    const timeout = new FdxTimeoutError("stalled");
    const { client } = clientAnswering(failingAfterOneChunk(timeout));
    const document = await client.statements.download(target);
    await expect(document.blob()).rejects.toBe(timeout);
  });

  it("cancelling the document's body cancels the response stream", async () => {
    let cancelled: unknown = "not cancelled";
    const { client } = clientAnswering(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              controller.enqueue(bytes("page"));
            },
            cancel(reason) {
              cancelled = reason;
            },
          }),
        ),
    );
    const document = await client.statements.download(target);
    const reader = document.body.getReader();
    await reader.read();
    await reader.cancel("enough");
    expect(cancelled).toBe("enough");
  });
});
