// Which token of a connection data calls get, when it expires, and how long
// before that it is refreshed: the app's margin, but never more than half
// the token's lifetime, so a short-lived token is not refreshed on every use.
import { FdxAuthError } from "../errors.js";
import { peekClaims } from "../id-token.js";
import type { Connection, TokenSet } from "../types.js";

export interface Bearer {
  readonly byAccessToken: boolean;
  /** The token handed to data calls ("" when the row has none). */
  of(row: Connection): string;
  /** When that token expires (ms since the epoch; 0 for an access token of unknown expiry). */
  expiry(row: Connection): number;
  /** A provider that gave no expires_in: the access token is used until a data call rejects it. */
  unknownExpiry(row: Connection): boolean;
  /** Whether a row's bearer may be handed out now: there, not the rejected one, and not yet in its refresh window. */
  usable(row: Connection, rejected: string | undefined): boolean;
  /** The row's bearer, or the typed error when the provider sent none. */
  handOut(row: Connection): string;
  /** Refuses a token set that lacks the bearer. */
  check(set: TokenSet): void;
}

export function createBearer(kind: "id_token" | "access_token", refreshBeforeMs: number): Bearer {
  const byAccessToken = kind === "access_token";
  const of = (row: Connection) => (byAccessToken ? row.accessToken : row.idToken);
  const expiry = (row: Connection) => (byAccessToken ? row.accessTokenExpiresAt : row.expiresAt);
  const unknownExpiry = (row: Connection) => byAccessToken && row.accessTokenExpiresAt === 0;
  // Rows are immutable once read, so a row's window is worked out once (it may decode the id token).
  const windows = new WeakMap<Connection, number>();
  const windowOf = (row: Connection) => {
    let window = windows.get(row);
    // Stryker disable next-line ConditionalExpression: working it out again gives the same window
    if (window === undefined) {
      window = Math.min(refreshBeforeMs, lifetimeOf(row, byAccessToken) / 2);
      windows.set(row, window);
    }
    return window;
  };
  return {
    byAccessToken,
    of,
    expiry,
    unknownExpiry,
    usable(row, rejected) {
      const token = of(row);
      if (token === "" || token === rejected) return false;
      return unknownExpiry(row) || expiry(row) - windowOf(row) > Date.now();
    },
    handOut(row) {
      const token = of(row);
      if (token === "") throw noAccessToken();
      return token;
    },
    check(set) {
      if (byAccessToken && set.accessToken === "") throw noAccessToken();
    },
  };
}

/**
 * A token's lifetime in milliseconds (Infinity when unknown): `exp − iat` of
 * the id token, or for the access token the time from the row's write, when
 * its pair was issued, to `accessTokenExpiresAt` (from `expires_in`).
 */
function lifetimeOf(row: Connection, byAccessToken: boolean): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a row is written before it is read, so an expiry at or before its write is past, due under any window
  if (byAccessToken) return row.accessTokenExpiresAt > row.updatedAt ? row.accessTokenExpiresAt - row.updatedAt : Infinity;
  const claims = peekClaims(row.idToken);
  const exp = claims?.exp;
  const iat = claims?.iat;
  return typeof exp === "number" && typeof iat === "number" && iat < exp ? (exp - iat) * 1000 : Infinity;
}

function noAccessToken(): FdxAuthError {
  return new FdxAuthError({
    error: "no_access_token",
    errorDescription: 'the provider sent no access token, and bearer: "access_token" hands one to data calls',
  });
}
