// Rows an earlier fdxkit wrote with their tokens in plain text (it encrypted
// only when FDXKIT_ENCRYPTION_KEY was set) are sealed the first time the CLI
// runs with a key, so that no token stays readable in the store's files.
import type { Connection, ConnectionStore } from "@fdxkit/client/auth";

const ENVELOPE = "fdxenc.";
const TOKENS = ["idToken", "refreshToken", "accessToken"] as const;

/** Whether a stored row carries a token that is not an encrypted envelope. */
export function hasPlainToken(row: Connection): boolean {
  return TOKENS.some((field) => row[field] !== "" && !row[field].startsWith(ENVELOPE));
}

/**
 * Rewrites every row of `raw` that holds a plain token through `sealed` (the
 * same store behind the encryption), under compare-and-set so that a row
 * another process writes meanwhile is read again rather than overwritten.
 * Resolves how many rows it sealed.
 */
export async function sealPlainRows(raw: ConnectionStore, sealed: ConnectionStore): Promise<number> {
  let count = 0;
  for await (const listed of raw.list()) {
    let row: Connection | undefined = listed;
    // A few tries, then the row is another writer's, who seals as it writes.
    for (let tries = 0; row && hasPlainToken(row) && tries < 5; tries++) {
      if (await sealed.compareAndSet(row.id, row.version, { ...row, version: row.version + 1 })) {
        count++;
        break;
      }
      row = await raw.get(row.id);
    }
  }
  return count;
}
