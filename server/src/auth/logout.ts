import { sameOriginProcedure } from "../trpc/procedures.ts";
import { signOut } from "./accounts.ts";
import { ZLogoutResponse } from "./logout.types.ts";
import { accountsDeps } from "./runtime.ts";

/**
 * POST /auth/logout: revoke the current session and clear the cookie. Idempotent: without a live
 * session it still clears the cookie and answers logged_out (docs/auth.md).
 */
export const logoutProcedure = sameOriginProcedure.output(ZLogoutResponse).mutation(async ({ ctx }) => {
  await signOut(accountsDeps(ctx.deps), ctx.sessionToken);
  ctx.setSessionCookie(null);
  return { logged_out: true as const };
});
