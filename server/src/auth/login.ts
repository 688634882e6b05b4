import { AppError } from "../errors.ts";
import { rateLimitHeaders } from "../storage/rate-limiter.ts";
import { sameOriginProcedure } from "../trpc/procedures.ts";
import { signIn } from "./accounts.ts";
import { ZLoginRequest, ZLoginResponse } from "./login.types.ts";
import { accountsDeps } from "./runtime.ts";

/** POST /auth/login: verify the code, register or log in, and set a fresh session cookie. */
export const loginProcedure = sameOriginProcedure
  // Per client address, before input validation, so that every attempt counts (docs/auth.md
  // "Brute-force limits"): one address cannot guess across many phones and challenges.
  .use(async ({ ctx, next }) => {
    const { ipAttempts, ipWindowSeconds } = ctx.deps.auth.settings.loginLimits;
    const decision = await ctx.deps.console.limiter.consume("login", `ip:${ctx.ip ?? "unknown"}`, ipAttempts, ipWindowSeconds);
    if (!decision.allowed) {
      throw new AppError("RATE_LIMITED", `At most ${ipAttempts} sign-in attempts per ${ipWindowSeconds} s from one address; retry after the Retry-After seconds`, {
        headers: rateLimitHeaders("login", decision),
      });
    }
    return next();
  })
  .input(ZLoginRequest)
  .output(ZLoginResponse)
  .mutation(async ({ ctx, input }) => {
    const result = await signIn(accountsDeps(ctx.deps), input, { ip: ctx.ip, userAgent: ctx.userAgent, sessionToken: ctx.sessionToken });
    ctx.setSessionCookie({ token: result.token, expiresAt: result.cookieExpiresAt });
    return { user: result.user, created: result.created };
  });
