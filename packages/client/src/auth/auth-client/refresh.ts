// The refresh grant: a refresh token (spent by the IdP) for a new pair whose
// id token must name the same issuer, subject and audience as before.
import { FdxValidationError } from "../../core/error.js";
import type { TokenSet } from "../types.js";
import type { AuthContext } from "./context.js";
import { tokenCall } from "./token-call.js";
import type { TokenCallOptions } from "./types.js";

/** Exchanges a refresh token for a new pair. */
export async function refresh(ctx: AuthContext, refreshToken: string, call: TokenCallOptions | undefined): Promise<TokenSet> {
  if (typeof refreshToken !== "string" || refreshToken === "") throw new FdxValidationError([{ path: "refreshToken", message: "must be a non-empty string" }]);
  const params = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken });
  const kept = call?.previous;
  // Stryker disable next-line StringLiteral: any string that is not in the answer redacts nothing
  return tokenCall(ctx, params, [refreshToken, kept?.idToken ?? ""], call, {
    nonce: undefined,
    previous: call?.previousClaims ?? kept?.claims,
    refreshToken,
    // Stryker disable next-line BooleanLiteral: the refresh token spent is kept when the answer brings none, so none is ever missing
    requireRefreshToken: true,
    kept,
  });
}
