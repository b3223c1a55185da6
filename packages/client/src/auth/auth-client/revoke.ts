// Revoking a refresh token (RFC 7009), asked for by the app or done quietly
// when a token answer is refused after the IdP issued a new refresh token.
import { FdxValidationError } from "../../core/error.js";
import { type AuthContext, postToIdp } from "./context.js";
import type { TokenCallOptions } from "./types.js";

/** Revokes a refresh token; an IdP without a revocation endpoint is a `FdxValidationError`. */
export async function revoke(ctx: AuthContext, refreshToken: string, call?: TokenCallOptions): Promise<void> {
  if (typeof refreshToken !== "string" || refreshToken === "") throw new FdxValidationError([{ path: "refreshToken", message: "must be a non-empty string" }]);
  const { revocation } = await ctx.endpoints();
  if (!revocation) throw new FdxValidationError([{ path: "endpoints.revocation", message: "the IdP has no revocation endpoint" }]);
  await postToIdp(ctx, revocation, new URLSearchParams({ token: refreshToken, token_type_hint: "refresh_token" }), [refreshToken], call);
}

/** Revokes a refresh token and drops any failure. */
export function revokeQuietly(ctx: AuthContext, refreshToken: string): Promise<void> {
  return revoke(ctx, refreshToken).catch(() => {
    // Best effort: the IdP expires it in time.
  });
}
