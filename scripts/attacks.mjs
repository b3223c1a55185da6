#!/usr/bin/env node
// The attack set, in one place: every hostile server of the hardening rounds
// (issue 26 and the earlier ones) replayed against the BUILT client
// (packages/client/dist, as users get it), each attack in a fresh Node
// process so its peak memory is its own. Prints a table — attack, outcome,
// time, peak RSS rise, whether any piece of the token leaked — and writes it
// to docs/security-attacks.md and the security guide's table (docs/security.md).
//
//   node scripts/attacks.mjs           run all, write the table
//   node scripts/attacks.mjs --check   run all, fail when an outcome differs from the committed table
//                                      (times and memory vary from machine to machine; outcomes may not)
//   node scripts/attacks.mjs --one N   run attack N only, print its result as JSON (what the parent does)
import { spawn } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { createServer, request as httpRequest } from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { inspect } from "node:util";
import { constants as zlib, createBrotliCompress, createGzip } from "node:zlib";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "packages/client/dist");
const TABLE_FILE = path.join(root, "docs/security-attacks.md");
const GUIDE = path.join(root, "docs/security.md");
const START = "<!-- attacks:start (written by scripts/attacks.mjs) -->";
const END = "<!-- attacks:end -->";
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.atk-SECRET-9f2c41d7e0b3.sig";
const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------
// Hostile servers and the helpers the attacks share.

/** A real HTTP server on 127.0.0.1; `handler` may be async. */
async function serve(handler) {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    Promise.resolve(handler(req, res, requests)).catch(() => res.destroy());
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    get requests() {
      return requests;
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** `mib` MiB of spaces through a compressor, fed a MiB at a time: the attacker's side stays small, not in the figures. */
async function compressSpaces(compressor, mib) {
  const spaces = Buffer.alloc(MiB, 0x20);
  const out = [];
  compressor.on("data", (chunk) => out.push(chunk));
  const done = new Promise((resolve, reject) => compressor.on("end", resolve).on("error", reject));
  for (let i = 0; i < mib; i++) if (!compressor.write(spaces)) await new Promise((resolve) => compressor.once("drain", resolve));
  compressor.end();
  await done;
  return Buffer.concat(out);
}
/** A gzip body of `mib` MiB of spaces: concatenated copies of one 64 MiB member (a few hundred KiB in all). */
async function gzipBomb(mib) {
  const member = await compressSpaces(createGzip({ level: 9 }), 64);
  return Buffer.concat(Array.from({ length: Math.ceil(mib / 64) }, () => member));
}
const brotliBomb = (mib) => compressSpaces(createBrotliCompress({ params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }), mib);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every 8-character piece of the token: none may show in any view of what an attack ended in. */
const PIECES = Array.from({ length: TOKEN.length - 7 }, (_, i) => TOKEN.slice(i, i + 8));
function leaked(value) {
  if (value === undefined) return false;
  const views =
    value instanceof Error
      ? [value.message, value.stack ?? "", String(value), JSON.stringify(value), inspect(value, { depth: 10 })]
      : [inspect(value, { depth: 10 })];
  return views.some((view) => PIECES.some((piece) => view.includes(piece)));
}

/** What a promise ends in: its error's class name, or "resolved". */
async function outcomeOf(promise) {
  try {
    await promise;
    return { name: "resolved", error: undefined };
  } catch (error) {
    return { name: error?.constructor?.name ?? String(error), error };
  }
}

async function drain(stream) {
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read());
}

// ---------------------------------------------------------------------------
// The attacks. Each resolves with { outcome, error?, extra? }; `outcome` is
// what the table compares in --check mode, so it names only what must never
// change (the error class, a count that is the contract's).

const attacks = {
  async "JSON answer: gzip bomb (1 GiB of spaces)"({ client, ready }) {
    const bomb = await gzipBomb(1024);
    await ready();
    const s = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(bomb));
    const r = await outcomeOf(client({ baseUrl: s.url }).consents.get("c-1"));
    await s.close();
    return { outcome: `${r.name} (maxResponseBytes)`, error: r.error };
  },
  async "JSON answer: brotli bomb (256 MiB of spaces)"({ client, ready }) {
    const bomb = await brotliBomb(256);
    await ready();
    const s = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": "br" }).end(bomb));
    const r = await outcomeOf(client({ baseUrl: s.url }).consents.get("c-1"));
    await s.close();
    return { outcome: `${r.name} (maxResponseBytes)`, error: r.error };
  },
  async "JSON answer: body trickles a byte every 50 ms"({ client }) {
    const s = await serve(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      while (!res.destroyed) {
        res.write(" ");
        await sleep(50);
      }
    });
    const r = await outcomeOf(client({ baseUrl: s.url, timeoutMs: 300 }).consents.get("c-1"));
    await s.close();
    return { outcome: `${r.name} after ${s.requests} attempts`, error: r.error };
  },
  async "JSON answer: headers never come"({ client }) {
    const s = await serve(() => {});
    const r = await outcomeOf(client({ baseUrl: s.url, timeoutMs: 300 }).consents.get("c-1"));
    await s.close();
    return { outcome: `${r.name} after ${s.requests} attempts`, error: r.error };
  },
  async "JSON answer: a string where an object is due"({ client }) {
    const s = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('"hello"'));
    const r = await outcomeOf(client({ baseUrl: s.url }).consents.get("c-1"));
    await s.close();
    return { outcome: r.name, error: r.error };
  },
  async "JSON call redirected, Location carrying the token"({ client }) {
    let followed = 0;
    const other = await serve((_req, res) => (followed++, res.end("{}")));
    const s = await serve((_req, res) => res.writeHead(302, { location: `${other.url}/x?access_token=${TOKEN}` }).end());
    const r = await outcomeOf(client({ baseUrl: s.url }).consents.get("c-1"));
    await Promise.all([s.close(), other.close()]);
    return { outcome: `${r.name}, ${followed} requests to the other place`, error: r.error };
  },
  async "echoed token across the 200-character message cut (plain-text 401)"({ client }) {
    const s = await serve((_req, res) => res.writeHead(401, { "content-type": "text/plain" }).end(`${"x".repeat(180)} ${TOKEN} more`));
    const r = await outcomeOf(client({ baseUrl: s.url }).consents.get("c-1"));
    await s.close();
    return { outcome: r.name, error: r.error };
  },
  async "echoed token across the 64 KiB error-body cut"({ client }) {
    const s = await serve((_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end(`${"y".repeat(64 * 1024 - 20)}${TOKEN}${"z".repeat(100)}`));
    const r = await outcomeOf(client({ baseUrl: s.url, maxRetries: 0 }).consents.get("c-1"));
    await s.close();
    return { outcome: r.name, error: r.error };
  },
  async "echoed token in an invalid 2xx body (the JSON parser's message)"({ client }) {
    const s = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(`${TOKEN}${" x".repeat(200)}`));
    const r = await outcomeOf(client({ baseUrl: s.url }).consents.get("c-1"));
    await s.close();
    return { outcome: r.name, error: r.error };
  },
  async "echoed token in headers, debugMessage and body of a JSON error"({ client }) {
    const body = JSON.stringify({ code: "1205", message: `Bearer ${TOKEN}`, debugMessage: `got ${TOKEN}`, echo: [TOKEN] });
    const s = await serve((_req, res) => res.writeHead(401, { "content-type": "application/json", "www-authenticate": `Bearer token="${TOKEN}"` }).end(body));
    const r = await outcomeOf(client({ baseUrl: s.url }).consents.get("c-1"));
    await s.close();
    return { outcome: r.name, error: r.error };
  },
  async "a same-origin page link carrying the token, then 404"({ client }) {
    const s = await serve((req, res) => {
      if (req.url === "/statements/v2/P/A") {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ statements: [{ statementId: "s1" }], links: { next: { href: `/statements/v2/P/A?access_token=${TOKEN}` } } }));
      } else res.writeHead(404, { "content-type": "text/plain" }).end(`no page ${req.url}`);
    });
    const r = await outcomeOf(drain(toStream(client({ baseUrl: s.url }).statements.list({ providerId: "P", accountId: "A" }).pages())));
    await s.close();
    return { outcome: r.name, error: r.error };
  },
  async "endless empty pages, each with a fresh next link"({ client }) {
    const s = await serve((req, res) => {
      const n = Number(new URL(req.url, "http://x").searchParams.get("n") ?? 0);
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ statements: n === 0 ? [{ statementId: "s1" }] : [], links: { next: { href: `/statements/v2/P/A?n=${n + 1}` } } }));
    });
    const r = await outcomeOf(drain(toStream(client({ baseUrl: s.url }).statements.list({ providerId: "P", accountId: "A" }).pages())));
    await s.close();
    return { outcome: `${r.name} after ${s.requests} requests`, error: r.error };
  },
  async "endless pages repeating one statement, each with a fresh next link"({ client }) {
    const s = await serve((req, res) => {
      const n = Number(new URL(req.url, "http://x").searchParams.get("n") ?? 0);
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ statements: [{ statementId: "same" }], links: { next: { href: `/statements/v2/P/A?n=${n + 1}` } } }));
    });
    const r = await outcomeOf(drain(toStream(client({ baseUrl: s.url }).statements.list({ providerId: "P", accountId: "A" }).pages())));
    await s.close();
    return { outcome: `${r.name} after ${s.requests} requests`, error: r.error };
  },
  async "pages linking back to an earlier page (a loop)"({ client }) {
    const s = await serve((req, res) => {
      const next = req.url === "/statements/v2/P/A" ? "/statements/v2/P/A?p=2" : "/statements/v2/P/A";
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ statements: [{ statementId: req.url }], links: { next: { href: next } } }));
    });
    const r = await outcomeOf(drain(toStream(client({ baseUrl: s.url }).statements.list({ providerId: "P", accountId: "A" }).pages())));
    await s.close();
    return { outcome: `${r.name} after ${s.requests} requests`, error: r.error };
  },
  async "a page link to another origin, token in it"({ client }) {
    const s = await serve((_req, res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ statements: [], links: { next: { href: `https://evil.test/steal?t=${TOKEN}` } } })),
    );
    const r = await outcomeOf(drain(toStream(client({ baseUrl: s.url }).statements.list({ providerId: "P", accountId: "A" }).pages())));
    await s.close();
    return { outcome: `${r.name} after ${s.requests} requests`, error: r.error };
  },
  async "download: gzip bomb (2 GiB of spaces), streamed"({ client, ready }) {
    const bomb = await gzipBomb(2048);
    await ready();
    const s = await serve((_req, res) => res.writeHead(200, { "content-type": "application/pdf", "content-encoding": "gzip" }).end(bomb));
    const r = await outcomeOf(
      client({ baseUrl: s.url })
        .statements.download("/s.pdf")
        .then((d) => drain(d.body)),
    );
    await s.close();
    return { outcome: `${r.name} (maxDownloadBytes, default 1 GiB)`, error: r.error };
  },
  async "download: brotli bomb (256 MiB) into arrayBuffer(), maxDownloadBytes 32 MiB"({ client, ready }) {
    const bomb = await brotliBomb(256);
    await ready();
    const s = await serve((_req, res) => res.writeHead(200, { "content-type": "application/pdf", "content-encoding": "br" }).end(bomb));
    const r = await outcomeOf(
      client({ baseUrl: s.url })
        .statements.download("/s.pdf", { maxDownloadBytes: 32 * MiB })
        .then((d) => d.arrayBuffer()),
    );
    await s.close();
    return { outcome: `${r.name} (maxDownloadBytes)`, error: r.error };
  },
  async "download: gzip bomb through saveStatement, maxDownloadBytes 64 MiB"({ client, node, ready }) {
    const bomb = await gzipBomb(1024);
    await ready();
    const s = await serve((_req, res) => res.writeHead(200, { "content-type": "application/pdf", "content-encoding": "gzip" }).end(bomb));
    const dir = mkdtempSync(path.join(os.tmpdir(), "fdxkit-attack-"));
    const r = await outcomeOf(
      client({ baseUrl: s.url })
        .statements.download("/s.pdf", { maxDownloadBytes: 64 * MiB })
        .then((d) => node.saveStatement(d, path.join(dir, "s.pdf"))),
    );
    const left = readdirSync(dir).length;
    rmSync(dir, { recursive: true, force: true });
    await s.close();
    return { outcome: `${r.name}, ${left} files left`, error: r.error };
  },
  async "download: body stalls after 1 KiB (timeoutMs 500)"({ client }) {
    const s = await serve((_req, res) => (res.writeHead(200, { "content-type": "application/pdf" }), res.write(Buffer.alloc(1024, 0x25))));
    const started = performance.now();
    const r = await outcomeOf(
      client({ baseUrl: s.url, timeoutMs: 500 })
        .statements.download("/s.pdf")
        .then((d) => drain(d.body)),
    );
    const endedMs = Math.round(performance.now() - started);
    await s.close();
    return { outcome: r.name, error: r.error, extra: `ended ${endedMs} ms after the call` };
  },
  async "download: body trickles 1 KiB every 100 ms (the caller's 1 s deadline)"({ client }) {
    const s = await serve(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf" });
      while (!res.destroyed) {
        res.write(Buffer.alloc(1024, 0x25));
        await sleep(100);
      }
    });
    const r = await outcomeOf(
      client({ baseUrl: s.url, timeoutMs: 500 })
        .statements.download("/s.pdf", { signal: AbortSignal.timeout(1000) })
        .then((d) => drain(d.body)),
    );
    await s.close();
    return { outcome: `${r.name} (a moving body streams; the signal ends it)`, error: r.error };
  },
  async "download: headers never come"({ client }) {
    const s = await serve(() => {});
    const r = await outcomeOf(client({ baseUrl: s.url, timeoutMs: 300 }).statements.download("/s.pdf"));
    await s.close();
    return { outcome: `${r.name} after ${s.requests} attempts`, error: r.error };
  },
  ...Object.fromEntries(
    [
      ["file:///etc/passwd", "file:"],
      ["data:application/pdf;base64,JVBERi0=", "data:"],
      ["javascript:alert(1)", "javascript:"],
    ].map(([location, scheme]) => [
      `download redirected to ${scheme}`,
      async ({ client }) => {
        const s = await serve((_req, res) => res.writeHead(302, { location }).end());
        const r = await outcomeOf(client({ baseUrl: s.url }).statements.download("/s.pdf"));
        await s.close();
        return { outcome: `${r.name} after ${s.requests} requests`, error: r.error };
      },
    ]),
  ),
  async "download redirected six times"({ client }) {
    const s = await serve((req, res) => res.writeHead(302, { location: `/hop/${Number(req.url.split("/").pop()) + 1 || 1}` }).end());
    const r = await outcomeOf(client({ baseUrl: s.url }).statements.download("/hop/0"));
    await s.close();
    return { outcome: `${r.name} after ${s.requests} requests`, error: r.error };
  },
  async "download redirected from https: down to http: (a hostile fetch)"({ client }) {
    let plain = 0;
    const fetch = async (request) => {
      if (request.url.startsWith("https:")) return new Response(null, { status: 302, headers: { location: request.url.replace("https:", "http:") } });
      plain++;
      return new Response("%PDF-1.7", { headers: { "content-type": "application/pdf" } });
    };
    const r = await outcomeOf(client({ baseUrl: "https://docs.test", fetch }).statements.download("/s.pdf"));
    return { outcome: `${r.name}, ${plain} requests over http:`, error: r.error };
  },
  async "download redirected to another origin"({ client }) {
    let sawToken = false;
    const other = await serve(
      (req, res) => ((sawToken ||= req.headers.authorization !== undefined), res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.7")),
    );
    const s = await serve((_req, res) => res.writeHead(302, { location: `${other.url.replace("127.0.0.1", "localhost")}/cdn/s.pdf` }).end());
    const r = await outcomeOf(
      client({ baseUrl: s.url })
        .statements.download("/s.pdf")
        .then((d) => d.arrayBuffer()),
    );
    await Promise.all([s.close(), other.close()]);
    return { outcome: `${r.name}, token ${sawToken ? "SENT" : "not sent"} to the other origin`, error: r.error };
  },
  async "webhook body: 100 000 bad customFields (1.7 MiB)"({ webhooks }) {
    // Bad: a number where a string is due, in every field; the valid body of the same size has strings there.
    const good = notificationBody(Array.from({ length: 100_000 }, () => ({ name: "x" })));
    const bad = notificationBody(
      Array.from({ length: 100_000 }, () => ({ name: 1 })),
      good.length,
    );
    const time = (body) => {
      let error;
      const started = performance.now();
      for (let i = 0; i < 5; i++) {
        try {
          webhooks.parseNotification(body);
        } catch (e) {
          error = e;
        }
      }
      return { ms: (performance.now() - started) / 5, error };
    };
    time(good);
    time(bad);
    const g = time(good);
    const b = time(bad);
    return {
      outcome: `${b.error?.constructor.name} with ${b.error?.issues?.length} issues`,
      error: b.error,
      extra: `${b.ms.toFixed(1)} ms a parse vs ${g.ms.toFixed(1)} ms for a valid body of the same size`,
    };
  },
  async "webhook bodies: 3 000 fuzzed (mutated, truncated, nested, prototype keys)"({ webhooks }) {
    let seed = 26;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const base = notificationBody([{ name: "a", value: "b" }]);
    let other = 0;
    for (let i = 0; i < 3000; i++) {
      let body = base;
      const kind = i % 5;
      if (kind === 0) body = body.slice(0, Math.floor(random() * body.length));
      else if (kind === 1) body = body.replace(/"[a-zA-Z]+"/, JSON.stringify(random() < 0.5 ? 1 : [null]));
      else if (kind === 2) body = `${"[".repeat(1 + Math.floor(random() * 10000))}1`;
      else if (kind === 3) body = body.replace('"category"', '"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"category"');
      else body = Array.from(body, (c) => (random() < 0.02 ? String.fromCharCode(Math.floor(random() * 0xffff)) : c)).join("");
      try {
        webhooks.parseNotification(body);
      } catch (error) {
        if (!(error instanceof webhooks.FdxWebhookError)) other++;
      }
    }
    const polluted = {}.polluted !== undefined;
    return { outcome: `${other} errors other than FdxWebhookError, prototype ${polluted ? "POLLUTED" : "untouched"}` };
  },
  async "200 slow webhook senders, each stalling after 64 KiB (bodyTimeoutMs 500)"({ webhooks, node }) {
    const handler = webhooks.createWebhookHandler({ onNotification: () => {} });
    const server = createServer(node.toNodeListener(handler, { bodyTimeoutMs: 500 }));
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address();
    const answers = await Promise.all(
      Array.from(
        { length: 200 },
        () =>
          new Promise((resolve) => {
            const socket = net.connect(port, "127.0.0.1", () => {
              socket.write(`POST /hooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`);
              socket.write(Buffer.alloc(64 * 1024, 0x20));
            });
            let text = "";
            socket.setEncoding("utf8");
            socket.on("data", (chunk) => (text += chunk));
            socket.on("close", () => resolve(text.slice(9, 12)));
            socket.on("error", () => resolve("reset"));
          }),
      ),
    );
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const counts = {};
    for (const a of answers) counts[a] = (counts[a] ?? 0) + 1;
    return {
      outcome: `${Object.entries(counts)
        .map(([status, n]) => `${n} × ${status}`)
        .join(", ")}, connections closed`,
    };
  },
  // --- Issue 36: forwarded certificates behind a proxy that appends, and a refresh token echoed in base64.
  ...Object.fromEntries(
    [
      ["an unclosed quote swallows the proxy's element (Envoy APPEND_FORWARD)", (pinned, proxy) => [`${pinned};Subject=",${proxy}`]],
      ["a trailing backslash in a quote escapes the proxy's comma (APPEND_FORWARD)", (pinned, proxy) => [`${pinned};Subject="CN=x\\,${proxy}`]],
      ["the proxy's line, then the client's own line (two header lines)", (pinned, proxy) => [proxy, pinned]],
    ].map(([what, lines]) => [
      `forwarded certificate: ${what}`,
      async ({ webhooks, node }) => {
        const { pinned, other } = fakeCertificates();
        const proxy = `By=spiffe://cluster.local/ns/hooks/sa/receiver;Hash=${other.hex};Subject="";URI=spiffe://cluster.local/ns/fdx/sa/sender`;
        const result = await verifyThroughListener(webhooks, node, "x-forwarded-client-cert", lines(`Hash=${pinned.hex}`, proxy), {
          fingerprints: [pinned.hex],
        });
        return { outcome: verdict(result) };
      },
    ]),
  ),
  async "forwarded certificate (pem): junk, then the pinned PEM"({ webhooks, node }) {
    const { pinned } = fakeCertificates();
    const result = await verifyThroughListener(webhooks, node, "x-client-cert", [`junk${encodeURIComponent(pinned.pem)}`], {
      fingerprints: [pinned.hex],
      format: "pem",
    });
    return { outcome: verdict(result) };
  },
  async "refresh token echoed base64-encoded in an OAuth error body"() {
    const auth = await import(pathToFileURL(path.join(dist, "auth.js")).href);
    const b64 = (text) => Buffer.from(text).toString("base64");
    const b64url = (text) => Buffer.from(text).toString("base64url");
    // The IdP quotes the request it refuses inside JSON, base64-encoded, so the token sits at no multiple of 3 bytes.
    let quoted = "";
    const s = await serve(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      quoted = JSON.stringify({ received: body });
      const description = `unknown refresh token ${b64(TOKEN)} (${b64url(TOKEN)}); request was ${b64(quoted)}`;
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_grant", error_description: description }));
    });
    const client = auth.createAuthClient({
      issuer: s.url,
      clientId: "c",
      clientSecret: "client-secret-1",
      redirectUri: "http://127.0.0.1:9/cb",
      endpoints: { authorization: `${s.url}/auth`, token: `${s.url}/token` },
    });
    const r = await outcomeOf(client.refresh(TOKEN));
    await s.close();
    const start = quoted.indexOf(TOKEN);
    const inner = (encoded) => encoded.slice(Math.ceil((start * 8) / 6), Math.floor(((start + TOKEN.length) * 8) / 6));
    const forms = [b64(TOKEN), b64(TOKEN).replace(/=+$/, ""), b64url(TOKEN), b64url(TOKEN).replace(/=+$/, ""), inner(b64(quoted)), inner(b64url(quoted))];
    const views = [r.error?.message, r.error?.stack, String(r.error), JSON.stringify(r.error), inspect(r.error, { depth: 10 })].join("\n");
    const shown = forms.filter((form) => views.includes(form)).length;
    return { outcome: `${r.name}, ${shown} of ${forms.length} base64 forms of the token shown`, error: r.error };
  },
  async "edited row: an older row's refresh token written back under a newer version (encrypted store)"() {
    return editedRow(({ rows, spent, store }) => {
      rows.set("a", { ...rows.get("a"), refreshToken: spent.refreshToken });
      return store.get("a");
    });
  },
  async "edited row: consentId changed to another user's, then found by it (encrypted store)"() {
    return editedRow(({ rows, store }) => {
      rows.set("a", { ...rows.get("a"), consentId: "consent-b" });
      return store.findByConsentId("consent-b");
    });
  },
  async "edited row: an account added to accounts (encrypted store)"() {
    return editedRow(({ rows, store }) => {
      rows.set("a", { ...rows.get("a"), accounts: ["acct-a", "acct-b"] });
      return store.get("a");
    });
  },
  // The CLI's tokens at rest (issue 36, item 1): the built CLI, run as users run it, in a fresh directory.
  async "fdxkit: another user reads the store in a --store directory that already existed (0755)"() {
    const dir = mkdtempSync(path.join(os.tmpdir(), "fdxkit-attack-store-"));
    try {
      const store = path.join(dir, "shared");
      mkdirSync(store, { mode: 0o755 });
      chmodSync(store, 0o755);
      const run = await runCliForAttack(["connections", "list", "--store", store], dir);
      const entries = walk(store);
      const open = entries.filter((e) => (e.mode & 0o077) !== 0);
      const warned = run.stderr.includes(`${store} is open to other users (mode 0755)`);
      // The count of entries varies with PGlite's version: it is a note, the outcome is what others can read.
      return {
        outcome: `${open.length} entries inside open to others, ${warned ? "warned" : "NOT warned"}`,
        error: run.stderr,
        extra: `${entries.length} entries checked`,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  async "fdxkit: a copy of the data directory, tokens from an earlier version's plain rows"({ ready }) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "fdxkit-attack-plain-"));
    try {
      const store = path.join(dir, "store");
      // An earlier fdxkit wrote this row without a key: the token in plain text.
      const { openPGlite, postgresConnectionStore } = await import(pathToFileURL(path.join(root, "packages/postgres/dist/index.js")).href);
      mkdirSync(store, { mode: 0o700 });
      const db = await openPGlite(path.join(store, "connections"), { templateDir: path.join(dir, "cache") });
      const now = Date.now();
      const row = {
        id: "u1",
        status: "active",
        idToken: `id-${TOKEN}`,
        refreshToken: TOKEN,
        expiresAt: now + 3_600_000,
        accessToken: "",
        accessTokenExpiresAt: 0,
        accounts: ["A1"],
        subject: "s",
        connector: "bank",
        consentId: "c1",
        issuer: "http://127.0.0.1:9",
        clientId: "attack",
        createdAt: now,
        updatedAt: now,
        version: 1,
      };
      await postgresConnectionStore(db).compareAndSet("u1", 0, row);
      await db.close();
      await ready();
      const run = await runCliForAttack(["connections", "list", "--json", "--store", store], dir);
      const sealedNow = run.stderr.includes("sealed the tokens of 1 connection(s)");
      const db2 = await openPGlite(path.join(store, "connections"), { templateDir: path.join(dir, "cache") });
      const rows = [];
      for await (const r of postgresConnectionStore(db2).list()) rows.push(r);
      await db2.close();
      const plainRows = rows.filter((r) => !r.refreshToken.startsWith("fdxenc.")).length;
      const keyInStore = walk(dir).some((e) => e.path.startsWith(store) && e.path.endsWith("/key"));
      return {
        outcome: `${sealedNow ? "sealed on the first run" : "NOT sealed"}, ${plainRows} plain row(s) left, key ${keyInStore ? "IN the data directory" : "kept outside the data directory"}`,
        error: run.stdout + run.stderr,
        extra: "old row versions may stay in PostgreSQL's files until their space is reused",
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/**
 * Someone with write access to the database (no key) edits a row behind
 * `encryptConnectionStore`: two connections, "a" at version 2 (its version 1
 * kept as `spent`) and "b"; `edit` changes the raw rows and reads through the
 * wrapper. The tokens are the attack token, so a token handed out shows.
 */
async function editedRow(edit) {
  const auth = await import(pathToFileURL(path.join(dist, "auth.js")).href);
  const rows = new Map();
  const copy = (row) => row && structuredClone(row);
  const inner = {
    get: async (id) => copy(rows.get(id)),
    async compareAndSet(id, version, next) {
      if ((rows.get(id)?.version ?? 0) !== version) return false;
      rows.set(id, copy(next));
      return true;
    },
    delete: async (id) => void rows.delete(id),
    async *list() {
      for (const row of [...rows.values()]) yield copy(row);
    },
    async findByConsentId(consentId) {
      for (const row of rows.values()) if (row.consentId === consentId) return copy(row);
      return undefined;
    },
  };
  const store = auth.encryptConnectionStore(inner, { keys: { k1: Buffer.alloc(32, 5).toString("base64") }, current: "k1" });
  const row = (id, version, refreshToken) => ({
    id,
    status: "active",
    idToken: TOKEN,
    refreshToken,
    expiresAt: 1.9e12,
    accessToken: TOKEN,
    accessTokenExpiresAt: 1.9e12,
    accounts: [`acct-${id}`],
    subject: `sub-${id}`,
    connector: "bank",
    consentId: `consent-${id}`,
    issuer: "/sandbox",
    clientId: "client",
    createdAt: 1,
    updatedAt: 1,
    version,
  });
  await store.compareAndSet("a", 0, row("a", 1, `${TOKEN}-spent`));
  const spent = rows.get("a");
  await store.compareAndSet("a", 1, row("a", 2, `${TOKEN}-current`));
  await store.compareAndSet("b", 0, row("b", 1, `${TOKEN}-b`));
  const { name, error } = await outcomeOf(edit({ rows, spent, store }));
  return { outcome: error ? `${name} (${error.reason}, connection ${error.connectionId})` : `${name}: the edited row was handed out`, error };
}

/** Runs the built CLI with a config home under `dir` (where its key file goes) and a dummy IdP client. */
function runCliForAttack(args, dir) {
  const cli = path.join(root, "packages/cli/dist/cli.js");
  if (!existsSync(cli)) throw new Error("packages/cli/dist is missing: build the CLI first");
  const env = {
    ...process.env,
    FDXKIT_ISSUER: "http://127.0.0.1:9",
    FDXKIT_CLIENT_ID: "attack",
    FDXKIT_CLIENT_SECRET: "attack-secret",
    XDG_CONFIG_HOME: path.join(dir, "config"),
    XDG_CACHE_HOME: path.join(dir, "cache"),
  };
  delete env.FDXKIT_ENCRYPTION_KEY;
  delete env.FDXKIT_STORE;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every entry under `dir` (itself excluded), with its mode; symbolic links skipped. */
function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const entry = path.join(dir, name);
    const info = lstatSync(entry);
    if (info.isSymbolicLink()) continue;
    out.push({ path: entry, mode: info.mode });
    if (info.isDirectory()) out.push(...walk(entry));
  }
  return out;
}

/** A notification body whose customFields are `fields`, padded with spaces to `size` characters. */
function notificationBody(fields, size) {
  const text = JSON.stringify({ category: "CONSENT", type: "CONSENT_REVOKED", notificationPayload: { id: "c-1", idType: "CONSENT", customFields: fields } });
  return size ? text.padEnd(size) : text;
}

/** Two stand-ins for certificates: random DER-sized bytes in PEM armour, and their SHA-256 (all the verifier hashes). */
function fakeCertificates() {
  const make = () => {
    const der = randomBytes(400);
    const lines = der
      .toString("base64")
      .match(/.{1,64}/g)
      .join("\n");
    return { pem: `-----BEGIN CERTIFICATE-----\n${lines}\n-----END CERTIFICATE-----\n`, hex: createHash("sha256").update(der).digest("hex") };
  };
  return { pinned: make(), other: make() };
}

/** verifyForwardedClientCertificate behind toNodeListener on 127.0.0.1, the header sent as these lines. */
async function verifyThroughListener(webhooks, node, header, lines, options) {
  const handler = async (request) => Response.json(await webhooks.verifyForwardedClientCertificate(request, { fromProxy: true, header, ...options }));
  const server = createServer(node.toNodeListener(handler));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await new Promise((resolve, reject) => {
      const req = httpRequest(`http://127.0.0.1:${server.address().port}/hooks`, { method: "POST", headers: { [header]: lines } }, async (res) => {
        let text = "";
        for await (const chunk of res) text += chunk;
        resolve(JSON.parse(text));
      });
      req.on("error", reject).end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const verdict = (result) => (result.verified ? "verified: true (the forged pin passed)" : `verified: false (${result.reason})`);

function toStream(iterator) {
  return new ReadableStream({
    async pull(controller) {
      const { done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(new Uint8Array(0));
    },
  });
}

// ---------------------------------------------------------------------------
// One attack in this process (the child's side).

async function runOne(name) {
  const main = await import(pathToFileURL(path.join(dist, "index.js")).href);
  const webhooks = await import(pathToFileURL(path.join(dist, "webhooks.js")).href);
  const node = await import(pathToFileURL(path.join(dist, "node.js")).href);
  const client = (options) => main.createClient({ token: TOKEN, maxRetries: 2, ...options });
  // Warm what every attack uses, so the baseline holds the loaded modules.
  await outcomeOf(client({ baseUrl: "http://127.0.0.1:9" }).consents.get("c", { maxRetries: 0 }));
  // The baseline is taken when the attack is ready (its hostile payload built), else at its start; the
  // peak is sampled from then on, so what the attacker's side built beforehand is not counted.
  let baseline = 0;
  let peak = 0;
  let started = 0;
  let sampler;
  const ready = async () => {
    globalThis.gc?.();
    clearInterval(sampler);
    baseline = peak = process.memoryUsage.rss();
    sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
    started = performance.now();
  };
  await ready();
  const result = await attacks[name]({ client, webhooks, node, ready });
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  process.stdout.write(
    JSON.stringify({ name, outcome: result.outcome, ms, rssRise: Math.max(0, peak - baseline), leaked: leaked(result.error), extra: result.extra }),
  );
}

function runChild(name) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--one", name], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    // The CLI's attacks start an embedded PostgreSQL: more time on a busy machine.
    const killer = setTimeout(() => child.kill("SIGKILL"), name.startsWith("fdxkit:") ? 180_000 : 30_000);
    child.on("close", (code, signal) => {
      clearTimeout(killer);
      try {
        resolve(JSON.parse(out));
      } catch {
        resolve({ name, outcome: `CRASHED (exit ${code ?? signal})`, ms: NaN, rssRise: NaN, leaked: false });
      }
    });
  });
}

// ---------------------------------------------------------------------------
// The table.

const cell = (text) => String(text).replaceAll("|", "\\|");

function table(results) {
  const rows = results.map((r) =>
    [cell(r.name), cell(r.outcome), `${Math.round(r.ms)} ms`, `${(r.rssRise / MiB).toFixed(1)} MiB`, r.leaked ? "**yes**" : "no", cell(r.extra ?? "")].join(
      " | ",
    ),
  );
  return ["| attack | outcome | time | peak RSS rise | token leaked | note |", "|---|---|---:|---:|---|---|", ...rows.map((row) => `| ${row} |`)].join("\n");
}

/** attack → outcome (and leak), from a table this script wrote. */
function outcomes(markdown) {
  const map = new Map();
  for (const line of markdown.split("\n")) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length < 7 || cells[1] === "attack" || cells[1].startsWith("---")) continue;
    map.set(cells[1], `${cells[2]} / leaked: ${cells[5]}`);
  }
  return map;
}

async function main() {
  const one = process.argv.indexOf("--one");
  if (one !== -1) return runOne(process.argv[one + 1]);
  if (!existsSync(path.join(dist, "index.js"))) {
    console.error("packages/client/dist is missing: build the client first (node scripts/build-changed.mjs client).");
    process.exit(1);
  }
  const check = process.argv.includes("--check");
  const started = performance.now();
  const results = [];
  for (const name of Object.keys(attacks)) {
    const result = await runChild(name);
    results.push(result);
    console.error(
      `${result.leaked || /CRASHED/.test(result.outcome) ? "✘" : "✔"} ${name}: ${result.outcome} (${Math.round(result.ms)} ms, +${(result.rssRise / MiB).toFixed(1)} MiB)`,
    );
  }
  const markdown = table(results);
  console.log(markdown);
  console.error(`${results.length} attacks in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  if (check) {
    const committed = existsSync(TABLE_FILE) ? outcomes(readFileSync(TABLE_FILE, "utf8")) : new Map();
    const now = outcomes(markdown);
    const differ = [...new Set([...committed.keys(), ...now.keys()])].filter((name) => committed.get(name) !== now.get(name));
    for (const name of differ) console.error(`✘ ${name}: committed "${committed.get(name) ?? "(none)"}", now "${now.get(name) ?? "(none)"}"`);
    if (differ.length)
      console.error("Outcomes differ from docs/security-attacks.md: fix the regression, or run `node scripts/attacks.mjs` and commit the table.");
    process.exit(differ.length ? 1 : 0);
  }

  const doc = `# Attacks replayed against the built client

Written by \`node scripts/attacks.mjs\` (\`pnpm check\` runs it with \`--check\`, which fails when an outcome differs from this table). Do not edit by hand.

Each attack is a hostile server on 127.0.0.1 (or a hostile body or sender) run against \`packages/client/dist\` in a fresh Node ${process.versions.node} process: the time is the attack's, the memory is the rise of the process's peak RSS over its resident size before the attack. "Token leaked" means an 8-character piece of the bearer token showed in the error's message, stack, \`String()\`, \`JSON.stringify()\` or \`util.inspect()\` (cause chain included). Times and memory vary with the machine; outcomes may not.

${markdown}
`;
  writeFileSync(TABLE_FILE, doc);
  const guide = readFileSync(GUIDE, "utf8");
  const from = guide.indexOf(START);
  const to = guide.indexOf(END);
  if (from !== -1 && to > from) writeFileSync(GUIDE, `${guide.slice(0, from + START.length)}\n${markdown}\n${guide.slice(to)}`);
  console.error(`wrote ${path.relative(root, TABLE_FILE)}${from !== -1 ? " and the security guide's table" : ""}`);
}

await main();
