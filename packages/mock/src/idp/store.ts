// What the sandbox IdP remembers between requests: codes, approvals with
// their live refresh token, access tokens, spent form tickets and counts.
// Every collection is bounded, so a long-running sandbox does not grow.

import type { AppState } from "../state.js";

/** Counts of what the IdP did, for tests of refresh races (`mock.authStats()`). */
export interface AuthStats {
  /** Authorization codes issued (one per approval). */
  codesIssued: number;
  /** Codes exchanged for tokens. */
  codesExchanged: number;
  /** Refresh-token grants answered with new tokens. */
  refreshes: number;
  /** Refresh-token grants refused (a spent, revoked or unknown refresh token, or a revoked consent). */
  refreshesRejected: number;
  /** Revocation requests answered 200 (RFC 7009: an unknown token too). */
  revocations: number;
}

/** At most this many unexchanged codes and this many consents of approvals are kept; the oldest go first. */
export const MAX_CODES = 1000;
/** @see MAX_CODES */
export const MAX_CONSENTS = 1000;
/** At most this many unexpired access tokens are kept; the oldest go first (and then answer 602). */
export const MAX_ACCESS_TOKENS = 10_000;
/** At most this many spent form tickets are remembered (a ticket lives minutes, so these are the recent ones). */
const MAX_SPENT_TICKETS = 10_000;

/** Who approved, when they signed in, and in which browser session. */
export interface Approval {
  clientId: string;
  subject: string;
  accounts: string[];
  connector: string;
  scope: string;
  /** When the user last signed in (seconds since the epoch): `auth_time`. */
  authTime: number;
  /** The IdP's sign-in session in that browser: `sid`. */
  sessionId: string;
}

export interface CodeRecord {
  redirectUri: string;
  codeChallenge: string | undefined;
  nonce: string | undefined;
  consentId: string;
  expiresAt: number;
}

/** One approval: the consent it created and the one refresh token that is live for it. */
export interface GrantRecord extends Approval {
  consentId: string;
  refreshToken: string | undefined;
}

/** An opaque access token: the grant it speaks for, until when. */
export interface AccessRecord {
  consentId: string;
  accounts: readonly string[];
  expiresAt: number;
}

const emptyStats = (): AuthStats => ({ codesIssued: 0, codesExchanged: 0, refreshes: 0, refreshesRejected: 0, revocations: 0 });

/** Drops entries whose time has passed, then the oldest until there is room for one more. */
function prune<V>(map: Map<string, V>, expiresAt: (value: V) => number, max: number): void {
  const now = Date.now();
  for (const [key, value] of map) if (expiresAt(value) <= now) map.delete(key);
  while (map.size >= max) map.delete(map.keys().next().value as string);
}

/** The IdP's records of one mock instance. */
export class IdpStore {
  readonly state: AppState;
  readonly codes = new Map<string, CodeRecord>();
  /** Approvals by consent id, oldest first. */
  readonly grants = new Map<string, GrantRecord>();
  /** The live refresh token of each grant → its consent id (a spent one is gone). */
  readonly refreshTokens = new Map<string, string>();
  readonly accessTokens = new Map<string, AccessRecord>();
  /** Ticket ids already used for an approval → until when the ticket would have been good. */
  readonly #spentTickets = new Map<string, number>();
  stats: AuthStats = emptyStats();

  constructor(state: AppState) {
    this.state = state;
  }

  reset(): void {
    this.codes.clear();
    this.grants.clear();
    this.refreshTokens.clear();
    this.accessTokens.clear();
    this.#spentTickets.clear();
    this.stats = emptyStats();
  }

  addCode(code: string, record: CodeRecord): void {
    prune(this.codes, (r) => r.expiresAt, MAX_CODES);
    this.codes.set(code, record);
  }

  addAccessToken(token: string, record: AccessRecord): void {
    prune(this.accessTokens, (r) => r.expiresAt, MAX_ACCESS_TOKENS);
    this.accessTokens.set(token, record);
  }

  /** Marks a ticket used; `false` when it already was (one approval per ticket). */
  spendTicket(id: string, expiresAt: number): boolean {
    if (this.#spentTickets.has(id)) return false;
    prune(this.#spentTickets, (until) => until, MAX_SPENT_TICKETS);
    this.#spentTickets.set(id, expiresAt);
    return true;
  }

  /** Whether the consent of a grant is still active (a revoked or dropped one is not). */
  isActive(consentId: string): boolean {
    return this.state.consents.get(consentId)?.status === "ACTIVE";
  }

  /** Ends a grant's live refresh token (revocation, or the user revoking at the provider). */
  dropRefreshToken(grant: GrantRecord): void {
    if (grant.refreshToken !== undefined) this.refreshTokens.delete(grant.refreshToken);
    grant.refreshToken = undefined;
  }

  /** Keeps at most MAX_CONSENTS consents of this instance: the oldest, with its refresh token, goes. */
  boundConsents(): void {
    while (this.state.consents.size > MAX_CONSENTS) {
      const oldest = this.state.consents.keys().next().value as string;
      this.state.consents.delete(oldest);
      const grant = this.grants.get(oldest);
      if (grant) this.dropRefreshToken(grant);
      this.grants.delete(oldest);
    }
  }
}
