// One call to the token endpoint and the reading of its answer, shared by
// the code exchange and the refresh.
import { isRecord } from "../../internal/is-record.js";
import { readTokenAnswer, type TokenChecks } from "../token-answer.js";
import type { TokenSet } from "../types.js";
import { type AuthContext, callSecrets, postToIdp } from "./context.js";
import { revokeQuietly } from "./revoke.js";
import type { TokenCallOptions } from "./types.js";

/** What the grant decides of the checks on a token answer; the client fills in the rest. */
export type GrantChecks = Omit<TokenChecks, "clientId" | "issuer" | "secrets">;

/** POSTs a grant to the token endpoint and reads its answer into a `TokenSet`. */
export async function tokenCall(
  ctx: AuthContext,
  params: URLSearchParams,
  secrets: string[],
  call: TokenCallOptions | undefined,
  checks: GrantChecks,
): Promise<TokenSet> {
  const { token, issuer } = await ctx.endpoints();
  const answer = await postToIdp(ctx, token, params, secrets, call);
  try {
    return readTokenAnswer(answer.status, answer.data, { ...checks, clientId: ctx.clientId, issuer, secrets: callSecrets(ctx, secrets) });
  } catch (error) {
    // A refresh token issued with an answer we refuse is kept nowhere: revoked, so it does not outlive the error.
    const issued = isRecord(answer.data) ? answer.data.refresh_token : undefined;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: revoke() refuses a token that is not a non-empty string before sending anything, and revokeQuietly drops that refusal; the first two checks only spare the call
    if (typeof issued === "string" && issued !== "" && issued !== checks.refreshToken) await revokeQuietly(ctx, issued);
    throw error;
  }
}
