import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

/** The built CLI, run as users run it (the project's test command builds first). */
export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (pnpm --filter @fdxkit/cli build)`);
}

export const TOKEN = "mock.token";

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

// The key file a store command makes lands here, not in the home directory of
// whoever runs the tests; the prepared PGlite template is shared by all runs.
let configHome: string | undefined;
const CACHE_HOME = path.join(tmpdir(), "fdxkit-test-cache");

/** The environment of the child: the parent's without any FDXKIT_* variable, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("FDXKIT_")) base[key] = value;
  configHome ??= mkdtempSync(path.join(tmpdir(), "fdxkit-test-config-"));
  return { ...base, NO_COLOR: "1", XDG_CONFIG_HOME: configHome, XDG_CACHE_HOME: CACHE_HOME, ...env };
}

export interface RunningCli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once `predicate` holds for the output so far (checked on every chunk). */
  waitFor(predicate: (out: { stdout: string; stderr: string }) => boolean, what: string): Promise<void>;
  done: Promise<CliResult>;
}

/** Starts `node dist/cli.js ...args` (this Node, unless another binary is given), collecting its output. */
export function startCli(args: readonly string[], env: Record<string, string> = {}, nodeArgs: readonly string[] = [], node = process.execPath): RunningCli {
  const child = spawn(node, [...nodeArgs, CLI, ...args], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    notify();
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    notify();
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      resolve({ code, signal, stdout, stderr });
      notify();
    });
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    done,
    waitFor(predicate, what) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate({ stdout, stderr })) {
            waiters.delete(check);
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            reject(new Error(`CLI exited before ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Runs the CLI to completion. */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  nodeArgs: readonly string[] = [],
  node = process.execPath,
): Promise<CliResult> {
  return startCli(args, env, nodeArgs, node).done;
}

/** Flags that point the CLI at a mock server with its token. */
export function mockFlags(mock: { baseUrl: string; productsUrl: string }, token = TOKEN): string[] {
  return ["--base-url", mock.baseUrl, "--products-url", mock.productsUrl, "--token", token];
}

export interface TestServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** A node:http server on an ephemeral loopback port. */
export async function startServer(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads a request body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}

/**
 * A proxy in front of `target` (same paths). `intercept` may answer a request
 * itself (return true); otherwise the request is forwarded and the response,
 * after `transform` (for JSON bodies) is piped back.
 */
export async function startProxy(
  target: string,
  hooks: {
    intercept?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
    transformJson?: (body: unknown, req: IncomingMessage) => unknown;
    /** Replaces the piping of a PDF body (e.g. to stall it). */
    pdfBody?: (bytes: Uint8Array, req: IncomingMessage, res: ServerResponse) => void;
  } = {},
): Promise<TestServer> {
  return startServer((req, res) => {
    void (async () => {
      if (hooks.intercept && (await hooks.intercept(req, res))) return;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && name !== "host" && name !== "connection") headers.set(name, value);
      }
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await readBody(req);
      const upstream = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
      const type = upstream.headers.get("content-type") ?? "";
      const bytes = new Uint8Array(await upstream.arrayBuffer());
      const outHeaders: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"].includes(name)) outHeaders[name] = value;
      });
      if (hooks.transformJson && type.includes("json") && upstream.ok) {
        const text = JSON.stringify(hooks.transformJson(JSON.parse(new TextDecoder().decode(bytes)), req));
        res.writeHead(upstream.status, { ...outHeaders, "content-length": Buffer.byteLength(text) });
        res.end(text);
        return;
      }
      if (hooks.pdfBody && type.includes("pdf") && upstream.ok) {
        res.writeHead(upstream.status, { ...outHeaders, "content-length": bytes.byteLength });
        hooks.pdfBody(bytes, req, res);
        return;
      }
      res.writeHead(upstream.status, { ...outHeaders, "content-length": bytes.byteLength });
      res.end(bytes);
    })().catch(() => res.destroy());
  });
}

/** Whether `text` contains `secret` (also base64- or URL-encoded). */
export function leaks(text: string, secret: string): boolean {
  return [secret, encodeURIComponent(secret), Buffer.from(secret).toString("base64")].some((form) => text.includes(form));
}
