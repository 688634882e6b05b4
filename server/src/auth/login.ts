import { sameOriginProcedure } from "../trpc/procedures.ts";
import { signIn } from "./accounts.ts";
import { ZLoginRequest, ZLoginResponse } from "./login.types.ts";
import { accountsDeps } from "./runtime.ts";

/** POST /auth/login: verify the code, register or log in, and set a fresh session cookie. */
export const loginProcedure = sameOriginProcedure
  .input(ZLoginRequest)
  .output(ZLoginResponse)
  .mutation(async ({ ctx, input }) => {
    const result = await signIn(accountsDeps(ctx.deps), input, { ip: ctx.ip, userAgent: ctx.userAgent, sessionToken: ctx.sessionToken });
    ctx.setSessionCookie({ token: result.token, expiresAt: result.cookieExpiresAt });
    return { user: result.user, created: result.created };
  });
