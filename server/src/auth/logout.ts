import { AppError } from "../errors.ts";
import { sameOriginProcedure } from "../trpc/procedures.ts";
import { signOut } from "./accounts.ts";
import { LogoutResponse } from "../contract/auth.ts";
import type { AuthEnv } from "./env.ts";

/**
 * POST /auth/logout: revoke the current session and clear the cookie. Idempotent: without a live
 * session it still clears the cookie and answers logged_out (docs/auth.md). An API key without a
 * session cookie is 401: there is nothing to log out, and answering logged_out would let a script
 * believe it had stopped something (a key stops working only when it is revoked).
 */
export const logoutProcedure = (env: AuthEnv) =>
  sameOriginProcedure.output(LogoutResponse).mutation(async ({ ctx }) => {
  if (ctx.sessionToken === null && ctx.apiKey !== null) {
    throw new AppError("UNAUTHORIZED", "Logout ends a signed-in session and none was sent; an API key is not a session (revoke the key in the console to stop it working)");
  }
  await signOut(env, ctx.sessionToken);
  ctx.setSessionCookie(null);
  return { logged_out: true as const };
});
