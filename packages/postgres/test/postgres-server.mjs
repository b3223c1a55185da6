// A throwaway real PostgreSQL server: Debian's `postgresql` package (initdb
// in a temp dir, a free loopback port, fsync off). Run as root (CI), the
// server runs as the `postgres` user, which PostgreSQL requires. Used by the
// package's tests (test/global-setup.ts) and by the benchmarks (bench/).
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The newest installed PostgreSQL's bin directory, or undefined when none is installed. */
export function findPostgresBin() {
  const base = "/usr/lib/postgresql";
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(path.join(base, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(base, versions[0], "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  return which.status === 0 ? path.dirname(which.stdout.trim()) : undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server from `bin` (see findPostgresBin). Resolves with its
 * `postgres://` URL and `stop()`, which ends it and removes its files.
 */
export async function startPostgresServer(bin, { maxConnections = 200 } = {}) {
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(os.tmpdir(), "fdxkit-pg-"));
  if (asRoot) {
    const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const run = (command, args) => {
    const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", path.join(bin, command), ...args]] : [path.join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: "utf8", cwd: dir });
    if (result.status !== 0) throw new Error(`${command} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  };
  const data = path.join(dir, "data");
  try {
    run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let port = 0;
  // Another process may take the port between freePort() and the server's bind: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      run("pg_ctl", [
        "-D",
        data,
        "-w",
        "-l",
        path.join(dir, "server.log"),
        "-o",
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=${maxConnections}`,
        "start",
      ]);
      break;
    } catch (error) {
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-w", "-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
