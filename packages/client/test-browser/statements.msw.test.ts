// Statements in the browser against msw's service worker: `for await`
// across link-based pages, `pages()` with the server's hrefs, and a PDF
// download read as a Blob — the way a web app would offer it to the user.
import { http, HttpResponse } from "msw";
import { expect, it } from "vitest";
import { createClient, FdxLinkError, type Statement } from "../src/index.js";
import { API, TOKEN, seen, worker } from "./msw-worker.js";

const client = createClient({ baseUrl: API, token: TOKEN, maxRetries: 0 });
const LIST = `${API}/statements/v2/prov-1/acc-1`;

function statement(n: number): Statement {
  const id = `st%2F${n}`; // tokenized, already URL-encoded, as the service sends it
  return {
    accountId: "acc-1",
    statementId: id,
    statementDate: `2024-${String(n).padStart(2, "0")}-28`,
    description: `Statement ${n}`,
    links: [{ href: `/statements/v2/prov-1/acc-1/${id}`, action: "GET", rel: "download", types: ["application/pdf"] }],
  } as Statement;
}

// Three pages of 2, 2 and 1 statements; the next links are opaque cursors, relative to the host.
const pages: Record<string, { statements: Statement[]; next?: string }> = {
  first: { statements: [statement(1), statement(2)], next: "/statements/v2/prov-1/acc-1?cursor=b%3D2&limit=2" },
  "b=2": { statements: [statement(3), statement(4)], next: "/statements/v2/prov-1/acc-1?cursor=c%3D4&limit=2" },
  "c=4": { statements: [statement(5)] },
};

function listHandler() {
  return http.get(LIST, ({ request }) => {
    const page = pages[new URL(request.url).searchParams.get("cursor") ?? "first"];
    if (!page) return HttpResponse.json({ code: "703", message: "bad cursor" }, { status: 400 });
    return HttpResponse.json({ statements: page.statements, links: page.next ? { next: { href: page.next } } : {} });
  });
}

it("for await yields every statement across pages, following the server's links byte for byte", async () => {
  worker.use(listHandler());
  const ids: string[] = [];
  for await (const s of client.statements.list({ providerId: "prov-1", accountId: "acc-1", limit: 2, startTime: "2024-01-01T00:00:00Z" })) {
    ids.push(s.statementId ?? "");
  }
  expect(ids).toEqual(["st%2F1", "st%2F2", "st%2F3", "st%2F4", "st%2F5"]);
  // The first request is the SDK's own query; later ones are the server's hrefs, unchanged.
  expect(seen).toHaveLength(3);
  const first = new URL(seen[0]!.url);
  expect(first.origin + first.pathname).toBe(LIST);
  expect(first.searchParams.get("limit")).toBe("2");
  expect(first.searchParams.get("startTime")).toMatch(/^2024-01-01T00:00:00(\.000)?Z$/);
  expect(seen.slice(1).map((r) => r.url)).toEqual([`${API}${pages.first!.next}`, `${API}${pages["b=2"]!.next}`]);
  for (const r of seen) expect(r.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
});

it("pages() exposes each page with its hrefs, and stopping early requests nothing more", async () => {
  worker.use(listHandler());
  const paginator = client.statements.list({ providerId: "prov-1", accountId: "acc-1", limit: 2 });
  const iterator = paginator.pages()[Symbol.asyncIterator]();
  const first = await iterator.next();
  expect(first.done).toBe(false);
  expect(first.value?.statements).toHaveLength(2);
  expect(first.value?.nextHref).toBe("/statements/v2/prov-1/acc-1?cursor=b%3D2&limit=2");
  await iterator.return?.();
  expect(seen).toHaveLength(1);
});

it("a next link to another origin is refused with FdxLinkError and never requested", async () => {
  worker.use(http.get(LIST, () => HttpResponse.json({ statements: [statement(1)], links: { next: { href: "https://evil.test/steal" } } })));
  const error = await client.statements
    .list({ providerId: "prov-1", accountId: "acc-1" })
    .toArray()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FdxLinkError);
  expect(seen.map((r) => new URL(r.url).origin)).toEqual([API]);
});

it("downloads a statement PDF into a Blob a page can offer for download", async () => {
  const pdf = new TextEncoder().encode("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
  worker.use(
    http.get(`${API}/statements/v2/prov-1/acc-1/:id`, ({ request }) =>
      request.headers.get("accept") === "application/pdf"
        ? new HttpResponse(pdf, { headers: { "Content-Type": "application/pdf", "Content-Length": String(pdf.byteLength) } })
        : new HttpResponse(null, { status: 406 }),
    ),
  );
  const document = await client.statements.download(statement(3));
  expect(seen[0]?.url).toBe(`${API}/statements/v2/prov-1/acc-1/st%2F3`);
  expect(document.contentType).toBe("application/pdf");
  expect(document.contentLength).toBe(pdf.byteLength);
  const blob = await document.blob();
  expect(blob.size).toBe(pdf.byteLength);
  expect(new TextDecoder().decode(await blob.slice(0, 5).arrayBuffer())).toBe("%PDF-");
  // What a page does with it: an object URL the browser can fetch back.
  const url = URL.createObjectURL(blob);
  try {
    expect(new Uint8Array(await (await fetch(url)).arrayBuffer())).toEqual(pdf);
  } finally {
    URL.revokeObjectURL(url);
  }
});
