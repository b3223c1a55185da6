// One instance of the app as production runs it: `node server.mjs` in its
// own process, configured by its environment alone, so nothing it knows can
// reach another instance except through the cookies and the database.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface Instance {
  /** Where this process listens (the load balancer sends requests here). */
  url: string;
  /** Everything it printed, stdout and stderr, line by line. */
  output: string[];
  stop(): Promise<void>;
}

const appDir = fileURLToPath(new URL("..", import.meta.url));

/** Starts `node server.mjs` with exactly `env` (plus PATH), and resolves once it listens. */
export async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child: ChildProcess = spawn(process.execPath, ["server.mjs"], {
    cwd: appDir,
    env: { PATH: process.env.PATH ?? "", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the instance did not start:\n${output.join("\n")}`)), 30_000);
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line === "") continue;
        output.push(line);
        const listening = /this instance listens on (http:\/\/\S+)/.exec(line);
        if (listening) {
          clearTimeout(timer);
          resolve(listening[1]!);
        }
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the instance exited (${code ?? signal}):\n${output.join("\n")}`));
    });
  });
  return {
    url,
    output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
