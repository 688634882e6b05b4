import { AppError } from "../errors.ts";
import { rateLimitHeaders } from "../storage/rate-limiter.ts";
import { sameOriginProcedure } from "../trpc/procedures.ts";
import { signIn } from "./accounts.ts";
import { LoginRequest, LoginResponse } from "../contract/auth.ts";
import type { AuthEnv } from "./env.ts";

/** POST /auth/login: verify the code, register or log in, and set a fresh session cookie. */
export const loginProcedure = (env: AuthEnv) =>
  sameOriginProcedure
    // Per client address, before input validation, so that every attempt counts (docs/auth.md
    // "Brute-force limits"): one address cannot guess across many phones and challenges.
    .use(async ({ ctx, next }) => {
      const { ipAttempts, ipWindowSeconds } = env.settings.loginLimits;
      const decision = await env.limiter.consume("login", `ip:${ctx.ip ?? "unknown"}`, ipAttempts, ipWindowSeconds);
      if (!decision.allowed) {
        throw new AppError("RATE_LIMITED", `At most ${ipAttempts} sign-in attempts per ${ipWindowSeconds} s from one address; retry after the Retry-After seconds`, {
          headers: rateLimitHeaders("login", decision),
        });
      }
      return next();
    })
    .input(LoginRequest)
    .output(LoginResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await signIn(env, input, { ip: ctx.ip, userAgent: ctx.userAgent, sessionToken: ctx.sessionToken });
      ctx.setSessionCookie({ token: result.token, expiresAt: result.cookieExpiresAt });
      return { user: result.user, created: result.created };
    });
