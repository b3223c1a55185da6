// One user journey through createClient: list an account's statements, download one, save it.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { saveStatement } from "../../src/node/index.js";
import { json, startServer, type TestServer } from "../support/statements.js";

const TOKEN = "e2e-token";
const pdfFor = (id: string) => Buffer.from(`%PDF-1.7\n% statement ${id}\n%%EOF\n`);
// Tokenized ids as a provider sends them: already in URL form inside the link.
const STATEMENTS = ["2025-01%7CA%2F1", "2025-02%7CA%2F1", "2025-03%7CA%2F1"];

let server: TestServer;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fdxkit-e2e-"));
  server = await startServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(res, 401, { code: "1205", message: "Unauthorized" });
    const url = new URL(req.url ?? "", "http://x");
    const list = "/fdx/products/statements/v2/bank/acc-1";
    if (url.pathname === list) {
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const limit = Number(url.searchParams.get("limit") ?? 10);
      const slice = STATEMENTS.slice(offset, offset + limit);
      const next = offset + limit < STATEMENTS.length ? `${list}?offset=${offset + limit}&limit=${limit}` : undefined;
      return json(res, 200, {
        links: { next: next ? { href: next } : {} },
        statements: slice.map((id) => ({
          accountId: "acc-1",
          statementId: decodeURIComponent(id),
          status: "AVAILABLE",
          links: [{ href: `${list}/${id}`, action: "GET", types: ["application/pdf"] }],
        })),
      });
    }
    const match = STATEMENTS.find((id) => req.url === `${list}/${id}`);
    if (match && req.headers.accept === "application/pdf") {
      const body = pdfFor(match);
      res.writeHead(200, { "content-type": "application/pdf", "content-length": body.length });
      return res.end(body);
    }
    json(res, 404, { code: "1108", message: "Statement not found" });
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

it("lists statements page by page, downloads the first and saves it to disk", async () => {
  const client = createClient({ baseUrl: `${server.origin}/fdx/api`, productsUrl: `${server.origin}/fdx/products`, token: TOKEN });
  const statements = await client.statements.list({ providerId: "bank", accountId: "acc-1", limit: 2 }).toArray();
  expect(statements.map((s) => s.statementId)).toEqual(["2025-01|A/1", "2025-02|A/1", "2025-03|A/1"]);

  const document = await client.statements.download(statements[0]!);
  expect(document.contentType).toBe("application/pdf");
  const target = join(dir, "2025-01.pdf");
  const saved = await saveStatement(document, target);
  expect(saved.bytes).toBe(pdfFor(STATEMENTS[0]!).length);
  expect(await readFile(target)).toEqual(pdfFor(STATEMENTS[0]!));
  expect(server.urls()).toEqual([
    "/fdx/products/statements/v2/bank/acc-1?limit=2",
    "/fdx/products/statements/v2/bank/acc-1?offset=2&limit=2",
    "/fdx/products/statements/v2/bank/acc-1/2025-01%7CA%2F1",
  ]);
});
