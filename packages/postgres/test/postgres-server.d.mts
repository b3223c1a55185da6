/** The newest installed PostgreSQL's bin directory, or undefined when none is installed. */
export function findPostgresBin(): string | undefined;

/** A running throwaway server. */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication). */
  url: string;
  /** Stops the server and removes its files. */
  stop(): void;
}

/** Starts a server from `bin` (see findPostgresBin): initdb in a temp dir, a free loopback port. */
export function startPostgresServer(bin: string, options?: { maxConnections?: number }): Promise<PostgresServer>;
