import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { Statement } from "@fdxkit/client";

const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})/;

/**
 * The file a statement is saved as: `YYYY-MM-DD_<hash>.pdf`.
 *
 * Deterministic, so a re-run finds what an earlier run saved, and built only
 * from characters the CLI controls: the date part must be digits in the
 * `YYYY-MM-DD` shape (anything else becomes `undated`), and the statement's
 * identity (provider, account, statement id — or, without an id, its download
 * link) enters only as a SHA-256 prefix. Nothing the server sends can name a
 * directory, a parent segment or a hidden file.
 *
 * Returns undefined for a statement with neither an id nor a link.
 */
export function statementFileName(statement: Statement, scope: { providerId: string; accountId: string }): string | undefined {
  const identity = statementIdentity(statement);
  if (identity === undefined) return undefined;
  const match = typeof statement.statementDate === "string" ? DATE_PREFIX.exec(statement.statementDate) : null;
  const date = match ? `${match[1]}-${match[2]}-${match[3]}` : "undated";
  const hash = createHash("sha256")
    .update(JSON.stringify([scope.providerId, scope.accountId, identity]))
    .digest("hex")
    .slice(0, 16);
  const name = `${date}_${hash}.pdf`;
  // By construction; checked anyway, since this is the one place a path is made from server data.
  if (basename(name) !== name || !/^[0-9a-z_-]+\.pdf$/.test(name)) throw new Error(`unsafe file name ${JSON.stringify(name)}`);
  return name;
}

/**
 * What identifies a statement: its id when that is a non-empty string, else
 * its first non-empty link. The export's file names and its dedupe across
 * windows both use it, so that what counts as one statement is one file.
 */
export function statementIdentity(statement: Statement): string | undefined {
  if (typeof statement.statementId === "string" && statement.statementId !== "") return `id:${statement.statementId}`;
  const href = statement.links?.find((link) => typeof link?.href === "string" && link.href !== "")?.href;
  return href === undefined ? undefined : `href:${href}`;
}

/**
 * The directory (under `--out`) an account's statements go to:
 * `<id, made safe>-<hash>`, e.g. `ACC-1001-7c4e0a91`. The readable part keeps
 * letters, digits, `.`, `_` and `-` of the id (at most 40, anything else
 * becomes `_`, a leading dot too); the hash of the whole id keeps two
 * accounts apart however alike they look after that (`a/b` and `a_b`, or
 * `acc` and `ACC` on a case-insensitive file system). Never `.`, `..`, hidden
 * or nested.
 */
export function accountDirName(accountId: string): string {
  const readable = accountId
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\./, "_")
    .slice(0, 40);
  const hash = createHash("sha256").update(accountId, "utf8").digest("hex").slice(0, 8);
  const name = `${readable}-${hash}`;
  if (basename(name) !== name || name.startsWith(".")) throw new Error(`unsafe directory name ${JSON.stringify(name)}`);
  return name;
}
