// A node:http server on 127.0.0.1 serving a Fetch handler through
// toNodeListener, closed (connections and all) after each test.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { toNodeListener, type NodeListenerOptions } from "../../src/node/index.js";

export type FetchHandler = Parameters<typeof toNodeListener>[0];

/** Registers the cleanup; returns `serve`, which resolves with the port. */
export function useListenerServers(): (handler: FetchHandler, options?: NodeListenerOptions) => Promise<number> {
  const servers: http.Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  });
  return async (handler, options) => {
    const server = http.createServer(toNodeListener(handler, options));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  };
}
