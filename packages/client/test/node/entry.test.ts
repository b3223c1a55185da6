// The `node` entry's createClient (src/index.node.ts): the same client, with
// Node's own transport and the one option only it uses, `agent`, checked.
import { describe, expect, it } from "vitest";
import { createClient, FdxValidationError } from "../../src/index.node.js";
import { createClient as createMainClient } from "../../src/index.js";
import { rejectionOf, startHttp, TOKEN } from "../support/http.js";
import { transport } from "../support/transport.js";

describe("the node entry's createClient", () => {
  it("refuses an agent that is no object, beside every other bad option", async () => {
    const alone = (await rejectionOf((async () => createClient({ baseUrl: "https://api.test", token: TOKEN, agent: 5 as never }))())) as FdxValidationError;
    expect(alone).toBeInstanceOf(FdxValidationError);
    expect(alone.message).toBe("Invalid input: agent: must be an object { http?, https? }");
    const both = (await rejectionOf((async () => createClient({ baseUrl: "nope", token: TOKEN, agent: null as never }))())) as FdxValidationError;
    expect(both.issues).toEqual([
      { path: "baseUrl", message: "must be an absolute http(s) URL without query, fragment or credentials" },
      { path: "productsUrl", message: "must be an absolute http(s) URL without query, fragment or credentials" },
      { path: "agent", message: "must be an object { http?, https? }" },
    ]);
  });

  it("sends through node:http, and through fetch when given one", async () => {
    const server = await startHttp((req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "c-1", agent: req.headers["user-agent"] ?? "" })),
    );
    try {
      // Node's fetch (undici) names itself in User-Agent; node:http sends none.
      await expect(createClient({ baseUrl: server.url, token: TOKEN, agent: {} }).consents.get("c-1")).resolves.toEqual({ id: "c-1", agent: "" });
      const viaFetch = await createClient({ baseUrl: server.url, token: TOKEN, fetch: globalThis.fetch }).consents.get("c-1");
      expect((viaFetch as Record<string, unknown>).agent).not.toBe("");
    } finally {
      await server.close();
    }
  });

  // Loading the node entry changes nothing for the main entry's clients: each client carries the transport it was made with.
  it.runIf(transport === "fetch")("leaves the main entry's clients on fetch, and each client keeps its transport through withOptions", async () => {
    const server = await startHttp((req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "c-1", agent: req.headers["user-agent"] ?? "" })),
    );
    const agentOf = async (client: { consents: { get(id: string): Promise<unknown> } }) => ((await client.consents.get("c-1")) as { agent: string }).agent;
    try {
      const main = createMainClient({ baseUrl: server.url, token: TOKEN });
      expect(await agentOf(main)).not.toBe("");
      expect(await agentOf(main.withOptions({ timeoutMs: 5_000 }))).not.toBe("");
      const node = createClient({ baseUrl: server.url, token: TOKEN });
      expect(await agentOf(node.withOptions({ timeoutMs: 5_000 }))).toBe("");
      expect(await agentOf(node.withOptions({ fetch: globalThis.fetch }))).not.toBe("");
    } finally {
      await server.close();
    }
  });
});
