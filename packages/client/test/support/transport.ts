// The client project runs every test twice (vitest.config.ts): against Node's
// own transport, the default in Node, and with FDXKIT_TRANSPORT=fetch against
// globalThis.fetch. Tests import src/index.ts (the entry without the node
// condition); in the node run its createClient is the one the node entry
// builds on, with Node's own transport chosen as that entry chooses it.
import { vi } from "vitest";

vi.mock(import("../../src/client.js"), async (importOriginal) => {
  const client = await importOriginal();
  if (process.env.FDXKIT_TRANSPORT === "fetch") return client;
  const { sendNodeTransport } = await import("../../src/node/transport.js");
  return { ...client, createClient: (options) => client.clientWith(options, sendNodeTransport) };
});

/** The transport this run's clients use when given no `fetch`. */
export const transport: "node" | "fetch" = process.env.FDXKIT_TRANSPORT === "fetch" ? "fetch" : "node";
