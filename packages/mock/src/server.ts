import { toNodeListener } from "@fdxkit/client/node";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createApp, finishResponse, type MockApp, type MockControls, type MockOptions } from "./app.js";
import { INTERACTION_ID, internalServerError, methodNotAllowed } from "./errors.js";
import { mutualTlsTransport } from "./tls-delivery.js";

/** Options of {@link startMockServer}. */
export interface MockServerOptions extends MockOptions {
  /** Port to listen on. Default 0: an ephemeral port, see `baseUrl`. */
  port?: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
}

/** A running mock server. */
export interface MockServer extends MockControls {
  /** `http://HOST:PORT`: notifications and consents. */
  readonly baseUrl: string;
  /** `http://HOST:PORT/products`: statements (hrefs in pages start with `/products`). */
  readonly productsUrl: string;
  /** With `documents: "redirect"`, `http://HOST:PORT2`: a second server holding the documents. */
  readonly documentsUrl: string | undefined;
  /** `http://HOST:PORT3`: the identity provider, on a server of its own (another port, so another origin). */
  readonly idpUrl: string;
  readonly port: number;
  /** The app behind the server, e.g. to share it with msw handlers. */
  readonly app: MockApp;
  /** Stops listening, drops open connections and aborts webhook deliveries in flight. */
  close(): Promise<void>;
}

function urlHost(address: AddressInfo): string {
  // A wildcard address is not something to connect to; loopback reaches it.
  if (address.address === "0.0.0.0" || address.address === "::") return "127.0.0.1";
  return address.family === "IPv6" ? `[${address.address}]` : address.address;
}

async function listen(port: number, host: string): Promise<{ server: Server; origin: string; port: number }> {
  const server = createServer();
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
  return { server, origin: `http://${urlHost(address)}:${address.port}`, port: address.port };
}

const ALLOW = ["GET", "POST", "PATCH", "DELETE", "OPTIONS"];

function interactionId(req: IncomingMessage): string | null {
  const value = req.headers[INTERACTION_ID];
  return typeof value === "string" ? value : null;
}

/** Answers a CONNECT (which node hands over as a raw socket) with 405, like any method the service lacks. */
async function refuseConnect(req: IncomingMessage, socket: Socket): Promise<void> {
  const response = finishResponse(methodNotAllowed(ALLOW), interactionId(req));
  const body = Buffer.from(await response.arrayBuffer());
  let head = `HTTP/1.1 ${response.status} Method Not Allowed\r\n`;
  for (const [name, value] of response.headers) head += `${name}: ${value}\r\n`;
  head += `content-length: ${body.byteLength}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]));
}

/**
 * The response with its body in memory and an exact Content-Length, as the
 * service answers (the bridge would otherwise stream it chunked). Sandbox
 * bodies are small JSON or a test document.
 */
async function withLength(response: Response): Promise<Response> {
  if (response.type === "error" || response.body === null) return response;
  const body = await response.arrayBuffer();
  const headers = new Headers(response.headers);
  headers.set("content-length", String(body.byteLength));
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

function serve(server: Server, app: MockApp, origin: string): void {
  // Attached right after listening: no connection can be handled before. The
  // client's Node bridge streams the body to the app as the app reads it, so
  // a request refused before its body (401, 413) is answered and its
  // connection closed without reading the rest. The origin is the server's
  // own, whatever Host a client sends: it tells the documents server apart.
  server.on(
    "request",
    toNodeListener(
      async (request) => {
        try {
          return withLength(await app.fetch(request));
        } catch {
          return finishResponse(internalServerError(), request.headers.get(INTERACTION_ID));
        }
      },
      {
        origin,
        // TRACE and TRACK, which a Fetch Request cannot carry: refused like any method the service lacks.
        onForbiddenMethod: (req) => finishResponse(methodNotAllowed(ALLOW), interactionId(req)),
      },
    ),
  );
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    refuseConnect(req, socket).catch(() => socket.destroy());
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Starts the mock as a real HTTP server (node:http; msw is not needed). The
 * identity provider listens on another port (its own origin); with
 * `documents: "redirect"`, one more server on another port serves the documents.
 *
 * @example
 * const mock = await startMockServer({ port: 0 });
 * await fetch(`${mock.baseUrl}/consents/v1/${mock.seed.consents[0].id}`, { headers: { Authorization: `Bearer ${mock.token}` } });
 * await mock.close();
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const { port = 0, host = "127.0.0.1", ...appOptions } = options;
  const main = await listen(port, host);
  const documents = appOptions.documents === "redirect" ? await listen(0, host) : undefined;
  const idp = await listen(0, host);
  const servers = [main, documents, idp];
  let app: MockApp;
  try {
    app = createApp(
      { ...appOptions, baseUrl: main.origin, productsUrl: `${main.origin}/products`, documentsUrl: documents?.origin, idpUrl: idp.origin },
      { faultKinds: ["maintenance", "rate-limit", "reset"], mutualTls: mutualTlsTransport },
    );
  } catch (error) {
    await Promise.all(servers.map((s) => s && closeServer(s.server)));
    throw error;
  }
  serve(main.server, app, main.origin);
  if (documents) serve(documents.server, app, documents.origin);
  serve(idp.server, app, idp.origin);

  let closing: Promise<void> | undefined;
  return {
    get baseUrl() {
      return app.baseUrl;
    },
    get productsUrl() {
      return app.productsUrl;
    },
    get documentsUrl() {
      return app.documentsUrl;
    },
    get idpUrl() {
      return app.idpUrl;
    },
    get clientId() {
      return app.clientId;
    },
    get clientSecret() {
      return app.clientSecret;
    },
    authorize: (authorizationUrl, options) => app.authorize(authorizationUrl, options),
    revokeConsent: (consentId) => app.revokeConsent(consentId),
    authStats: () => app.authStats(),
    rateLimitStats: () => app.rateLimitStats(),
    port: main.port,
    app,
    get token() {
      return app.token;
    },
    get seed() {
      return app.seed;
    },
    deliveries: () => app.deliveries(),
    redeliver: (notificationId) => app.redeliver(notificationId),
    requests: () => app.requests(),
    get subscriptions() {
      return app.subscriptions;
    },
    get faultCount() {
      return app.faultCount;
    },
    setMaintenance: (on) => app.setMaintenance(on),
    failNext: (count) => app.failNext(count),
    idle: () => app.idle(),
    reset: () => app.reset(),
    close() {
      closing ??= Promise.all(servers.map((s) => s && closeServer(s.server))).then(() => app.dispose());
      return closing;
    },
  };
}
