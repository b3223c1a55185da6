// The client project runs every test twice (vitest.config.ts): against Node's
// own transport, the default in Node, and with FDXKIT_TRANSPORT=fetch against
// globalThis.fetch. Tests import src/index.ts (the entry without the node
// condition), so the node entry's one line is played here.
import { useSender } from "../../src/internal/request.js";
import { sendNodeOrFetch } from "../../src/node/transport.js";

useSender(process.env.FDXKIT_TRANSPORT === "fetch" ? undefined : sendNodeOrFetch);

/** The transport this run's clients use when given no `fetch`. */
export const transport: "node" | "fetch" = process.env.FDXKIT_TRANSPORT === "fetch" ? "fetch" : "node";
