// Serves routes.mjs with the runtime's own server (Bun.serve, Deno.serve; in
// Node, node:http with toNodeListener) on 127.0.0.1 and prints its origin.
// Bundled with esbuild before it runs, so every runtime runs the same code.
import { route } from "./routes.mjs";

const ready = (port) => console.log(`FDXKIT_BENCH_READY http://127.0.0.1:${port}`);
if (globalThis.Bun) {
  const server = globalThis.Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: route });
  ready(server.port);
} else if (globalThis.Deno) {
  globalThis.Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => ready(port) }, route);
} else {
  const { createServer } = await import("node:http");
  const { toNodeListener } = await import("@fdxkit/client/node");
  const server = createServer(toNodeListener(route));
  server.listen(0, "127.0.0.1", () => ready(server.address().port));
}
