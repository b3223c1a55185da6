// The benchmark server: plain node:http with keep-alive, run in its own
// process (forked by startServer) so its work never shares an event loop with
// the client being measured. Bodies are built once: the server's cost per
// request is as small and as constant as node:http allows.
import http from "node:http";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

export const TOKEN = "bench-token";
export const CONSENT_ID = "consent-active-1";
export const PROVIDER_ID = "bench-provider";
export const ACCOUNT_ID = "acc-1";

/** A consent grant as the service returns it (the shape the SDK's schema accepts). */
export const CONSENT = {
  id: CONSENT_ID,
  status: "ACTIVE",
  parties: [
    { name: "fdxkit Demo Budgeting App", type: "DATA_RECIPIENT", registeredEntityId: "REC-0042" },
    { name: "fdxkit Sandbox Bank", type: "DATA_PROVIDER", registeredEntityId: "PRV-0001" },
    { name: "fdxkit Network", type: "DATA_ACCESS_PLATFORM", registeredEntityId: "DAP-0007" },
  ],
  createdTime: "2025-01-15T10:30:00Z",
  resources: [
    { resourceType: "ACCOUNT", resourceId: "ACC-1001", dataClusters: ["ACCOUNT_BASIC", "ACCOUNT_DETAILED", "STATEMENTS"] },
    { resourceType: "ACCOUNT", resourceId: "ACC-1002", dataClusters: ["ACCOUNT_BASIC", "STATEMENTS"] },
    { resourceType: "CUSTOMER", resourceId: "CUST-501", dataClusters: ["CUSTOMER_CONTACT"] },
  ],
};

/** The statements path of the benchmark account, relative to the host. */
export const statementsPath = `/statements/v2/${PROVIDER_ID}/${ACCOUNT_ID}`;

function statement(i) {
  const statementId = `stmt-${String(i).padStart(6, "0")}`;
  const date = new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
  return {
    accountId: ACCOUNT_ID,
    statementId,
    statementDate: date,
    description: `Checking statement ${date}`,
    links: [{ href: `${statementsPath}/${statementId}`, action: "GET", types: ["application/pdf"] }],
    status: "AVAILABLE",
  };
}

/** Page `index` (0-based) of `pages`, `perPage` statements each, linking to the next by a host-relative href. */
function pageBody(index, pages, perPage) {
  const statements = Array.from({ length: perPage }, (_, k) => statement(index * perPage + k));
  const links = {};
  if (index + 1 < pages) links.next = { href: `${statementsPath}?offset=${(index + 1) * perPage}&limit=${perPage}` };
  if (index > 0) links.prev = { href: `${statementsPath}?offset=${(index - 1) * perPage}&limit=${perPage}` };
  // FDX's page object too, as providers that send both do: no nextOffset on the last page.
  const page = { totalElements: pages * perPage, ...(index + 1 < pages ? { nextOffset: String((index + 1) * perPage) } : {}) };
  return Buffer.from(JSON.stringify({ page, links, statements }));
}

function serve({ pages, perPage }) {
  const consent = Buffer.from(JSON.stringify(CONSENT));
  const pageCache = new Map();
  const page = (index) => {
    let body = pageCache.get(index);
    if (!body) pageCache.set(index, (body = pageBody(index, pages, perPage)));
    return body;
  };
  const chunk = Buffer.alloc(64 * 1024, 0x25); // '%' — content does not matter, only bytes

  const json = (res, body) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  };

  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "1205", message: "Unauthorized" }));
      return;
    }
    const url = new URL(req.url, "http://x");
    if (url.pathname === `/consents/v1/${CONSENT_ID}`) return json(res, consent);
    if (url.pathname === statementsPath) {
      const offset = Number(url.searchParams.get("offset") ?? 0);
      return json(res, page(Math.floor(offset / perPage)));
    }
    if (url.pathname.startsWith("/download/")) {
      // /download/<bytes>: that many bytes, streamed with backpressure.
      let left = Number(url.pathname.slice("/download/".length));
      res.writeHead(200, { "content-type": "application/pdf", "content-length": left });
      const pump = () => {
        while (left > 0) {
          const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= part.length;
          if (!res.write(part)) return void res.once("drain", pump);
        }
        res.end();
      };
      return pump();
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ code: "NotFound", message: "Not found" }));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
  process.on("disconnect", () => process.exit(0));
}

/**
 * Forks the server into its own process. Resolves with its origin and a
 * `close()` that ends the process.
 */
export function startServer({ pages = 300, perPage = 50 } = {}) {
  const child = fork(fileURLToPath(import.meta.url), ["--serve", String(pages), String(perPage)], { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`bench server exited early (${code})`)));
    child.once("message", ({ port }) => {
      child.removeAllListeners("exit");
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill();
          }),
      });
    });
  });
}

if (process.argv[2] === "--serve") serve({ pages: Number(process.argv[3]), perPage: Number(process.argv[4]) });
