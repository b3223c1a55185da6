// A load balancer in front of the app's instances, as production has one:
// the browser knows one address, and each request goes to the instance the
// test picks for it. The Host header is passed on unchanged, so every
// instance sees the public address it was configured with.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface LoadBalancer {
  /** The public address (the instances' PUBLIC_URL). */
  url: string;
  /** Which instance served each request, in order: "METHOD /path → name". */
  served: string[];
  close(): Promise<void>;
}

/**
 * @param pick the name of the instance a request goes to
 * @param backends instance name → its own address (set once the instances are listening)
 */
export async function startLoadBalancer(pick: (req: http.IncomingMessage) => string, backends: Map<string, string>): Promise<LoadBalancer> {
  const served: string[] = [];
  const server = http.createServer((req, res) => {
    const name = pick(req);
    const target = backends.get(name);
    if (!target) {
      res.writeHead(502).end(`no instance named ${name}`);
      return;
    }
    served.push(`${req.method} ${new URL(req.url ?? "/", "http://lb").pathname} → ${name}`);
    const upstream = http.request(new URL(req.url ?? "/", target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
