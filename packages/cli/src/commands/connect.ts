// `fdxkit connect` and `fdxkit connections …` (docs/cli.md, "End-user connections"):
// an end user approves access in a browser, the redirect comes back to a
// listener on 127.0.0.1 (RFC 8252), and the connection is stored; then list,
// refresh and revoke what is stored — never printing a token.
import type { IncomingMessage, ServerResponse } from "node:http";
import { nodeHttp } from "../node-http.js";
import type { AddressInfo } from "node:net";
import type { AuthorizationRequest, Connection, Connections } from "@fdxkit/client/auth";
import type { Command } from "commander";
import type { FdxCommand } from "../command.js";
import { integerOption } from "../config.js";
import { contextFor, type RunState } from "../context.js";
import { isoInstant } from "../dates.js";
import { UsageError } from "../errors.js";
import { openManager, type ConnectionOptions } from "../connections/manager.js";
import { table } from "../output.js";

interface ConnectOptions {
  connector: string;
  id?: string;
}

/** What `connections list --json` prints of a connection: never its tokens. */
export function connectionSummary(c: Connection) {
  return {
    id: c.id,
    status: c.status,
    connector: c.connector ?? null,
    accounts: c.accounts,
    consentId: c.consentId ?? null,
    // null: the stored value is no date (see isoInstant); the listing goes on.
    expiresAt: isoInstant(c.expiresAt),
    updatedAt: isoInstant(c.updatedAt),
  };
}

function connectionsTable(rows: Connection[]): string {
  if (rows.length === 0) return "No connections.";
  return table(
    ["id", "status", "connector", "accounts", "consentId", "expiresAt"],
    rows.map((c) => [c.id, c.status, c.connector, c.accounts.join(" "), c.consentId, isoInstant(c.expiresAt) ?? "invalid"]),
  );
}

const DEFAULT_WAIT_MS = 300_000;

export function registerConnections(program: FdxCommand, state: RunState): void {
  program
    .command("connect")
    .description("connect an end user's bank: prints the authorization URL to open, waits for the approval, stores the connection")
    .needs("--connector <id>", "the data provider to connect (the IdP's connector id)")
    .option("--id <id>", "the connection's id (default: <connector>:<subject>)")
    .addHelpText(
      "after",
      `
Listens on 127.0.0.1 (a free port) for the redirect http://127.0.0.1:<port>/callback,
which the IdP must accept for loopback clients (RFC 8252). --timeout MS is how long
to wait for the approval here (default ${DEFAULT_WAIT_MS}). The IdP client: --issuer,
--client-id, --client-secret-file (or FDXKIT_ISSUER, FDXKIT_CLIENT_ID,
FDXKIT_CLIENT_SECRET). Store: --store (a postgres:// URL or a directory), else
FDXKIT_STORE, else the XDG data directory. Tokens are sealed with FDXKIT_ENCRYPTION_KEY,
else with a key made on first use in $XDG_CONFIG_HOME/fdxkit/key (--plaintext-store: not at all).`,
    )
    .action(async (options: ConnectOptions, command: Command) => {
      const ctx = contextFor(command, state);
      const globals = ctx.options as ConnectionOptions;
      const waitMs = integerOption("--timeout", globals.timeout, 1) ?? DEFAULT_WAIT_MS;
      if (options.id !== undefined && options.id.trim() === "") throw new UsageError("--id: must not be empty");
      const listener = await startLoopback();
      try {
        // The IdP's requests keep their own default timeout: --timeout is the wait for the user.
        const manager = await openManager({ ...globals, timeout: undefined }, state.env, ctx.output, listener.redirectUri);
        try {
          const request = await manager.auth.authorizationUrl({ connector: options.connector });
          ctx.output.info(`Open this URL in a browser to connect ${options.connector} (waiting up to ${Math.round(waitMs / 1000)} s):`);
          ctx.output.info(request.url);
          const connection = await listener.wait(request, waitMs, (callbackUrl) =>
            manager.connections.complete(options.id ?? ((t) => `${t.connector ?? options.connector}:${t.subject}`), callbackUrl, request),
          );
          ctx.output.data(
            connectionSummary(connection),
            () => `Connected: ${connection.id} (${connection.accounts.length} account(s): ${connection.accounts.join(", ")}), stored in ${manager.store.where}`,
          );
        } finally {
          await manager.close();
        }
      } finally {
        listener.close();
      }
    });

  const connections = program.command("connections").description("end users' stored connections: list, refresh, revoke (tokens are never printed)");
  const withManager = async <T>(command: Command, run: (connections: Connections, ctx: ReturnType<typeof contextFor>) => Promise<T>) => {
    const ctx = contextFor(command, state);
    const manager = await openManager(ctx.options as ConnectionOptions, state.env, ctx.output);
    try {
      return await run(manager.connections, ctx);
    } finally {
      await manager.close();
    }
  };
  connections
    .command("list")
    .description("list the stored connections: id, status, connector, accounts, consent, expiry")
    .action(async (_options: unknown, command: Command) => {
      await withManager(command, async (c, ctx) => {
        const rows: Connection[] = [];
        for await (const row of c.list()) rows.push(row);
        ctx.output.data(rows.map(connectionSummary), () => connectionsTable(rows));
      });
    });
  connections
    .command("refresh")
    .description("refresh a connection's tokens now (one refresh at a time, shared with every other process on the store)")
    .argument("<id>", "connection id")
    .action(async (id: string, _options: unknown, command: Command) => {
      await withManager(command, async (c, ctx) => {
        const row = await c.refresh(id);
        ctx.output.data(connectionSummary(row), () => `Refreshed: ${row.id}, id token valid until ${isoInstant(row.expiresAt) ?? "an invalid date"}`);
      });
    });
  connections
    .command("revoke")
    .description("revoke a connection at the IdP and erase its tokens from the store")
    .argument("<id>", "connection id")
    .action(async (id: string, _options: unknown, command: Command) => {
      await withManager(command, async (c, ctx) => {
        if (!(await c.get(id))) throw new UsageError(`no connection ${JSON.stringify(id)} in the store`);
        await c.revoke(id);
        ctx.output.data({ id, status: "revoked" }, () => `Revoked: ${id}`);
      });
    });
}

interface Loopback {
  redirectUri: string;
  /** Resolves with what `complete` made of the first callback that carries the right state. */
  wait(request: AuthorizationRequest, timeoutMs: number, complete: (callbackUrl: string) => Promise<Connection>): Promise<Connection>;
  close(): void;
}

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

function page(res: ServerResponse, status: number, title: string, text: string): void {
  const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res
    .writeHead(status, PAGE_HEADERS)
    .end(`<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>\n`);
}

/** The redirect's listener: 127.0.0.1, a free port, only `GET /callback` with our own Host. */
async function startLoopback(): Promise<Loopback> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => page(res, 503, "Not ready", "Try again in a moment.");
  const server = nodeHttp().createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  const redirectUri = `http://${host}/callback`;
  return {
    redirectUri,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
    wait: (request, timeoutMs, complete) =>
      new Promise<Connection>((resolve, reject) => {
        let busy = false;
        const timer = setTimeout(() => {
          handle = (_req, res) => page(res, 410, "Too late", "fdxkit stopped waiting. Run `fdxkit connect` again.");
          reject(new UsageError(`connect: no approval came back within ${Math.round(timeoutMs / 1000)} s (--timeout)`));
        }, timeoutMs);
        handle = (req, res) => {
          // A page on another host name (DNS rebinding) or path gets nothing.
          if (req.headers.host !== host) return page(res, 400, "Wrong host", "This listener answers only its own address.");
          const url = new URL(req.url ?? "/", `http://${host}`);
          if (req.method !== "GET" || url.pathname !== "/callback") return page(res, 404, "Not found", "Nothing here.");
          // A stray or forged request must not end the wait for the real one.
          const states = url.searchParams.getAll("state");
          if (states.length !== 1 || states[0] !== request.state)
            return page(res, 400, "Not this request", "This callback does not belong to the connection being made; fdxkit is still waiting.");
          if (busy) return page(res, 409, "Already received", "fdxkit is already finishing this connection.");
          busy = true;
          clearTimeout(timer);
          complete(url.href).then(
            (connection) => {
              page(res, 200, "Connected", "You can close this window and return to the terminal.");
              resolve(connection);
            },
            (error: unknown) => {
              const denied = (error as { error?: unknown }).error === "access_denied";
              page(
                res,
                denied ? 200 : 400,
                denied ? "Not connected" : "Connection failed",
                denied ? "You did not approve access. You can close this window." : "See the terminal for what went wrong.",
              );
              reject(error);
            },
          );
        };
      }),
  };
}
