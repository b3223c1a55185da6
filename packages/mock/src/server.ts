import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMockApp, type MockApp, type MockControls, type MockOptions } from "./app.js";
import { internalServerError } from "./errors.js";
import { toRequest, writeResponse } from "./node-bridge.js";

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

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Starts the mock as a real HTTP server (node:http; msw is not needed).
 *
 * @example
 * const mock = await startMockServer({ port: 0 });
 * await fetch(`${mock.baseUrl}/consents/v1/${mock.seed.consents[0].id}`, { headers: { Authorization: `Bearer ${mock.token}` } });
 * await mock.close();
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const { port = 0, host = "127.0.0.1", ...appOptions } = options;
  const server = createServer();
  const address = await listen(server, port, host);
  const origin = `http://${urlHost(address)}:${address.port}`;
  const app = createMockApp({ ...appOptions, baseUrl: origin, productsUrl: `${origin}/products` });

  // Attached right after listening: no connection can be handled before.
  server.on("request", (req, res) => {
    const answer = async () => {
      let response: Response;
      try {
        response = await app.fetch(await toRequest(req, origin));
      } catch {
        response = internalServerError();
      }
      await writeResponse(response, res, req.method);
    };
    answer().catch(() => res.destroy());
  });

  let closing: Promise<void> | undefined;
  return {
    get baseUrl() {
      return app.baseUrl;
    },
    get productsUrl() {
      return app.productsUrl;
    },
    port: address.port,
    app,
    get token() {
      return app.token;
    },
    get seed() {
      return app.seed;
    },
    get deliveries() {
      return app.deliveries;
    },
    get subscriptions() {
      return app.subscriptions;
    },
    setMaintenance: (on) => app.setMaintenance(on),
    failNext: (count) => app.failNext(count),
    idle: () => app.idle(),
    reset: () => app.reset(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => app.dispose());
      return closing;
    },
  };
}
