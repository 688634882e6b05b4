import { requireConsoleSession } from "../access/resolver.ts";
import { crossSiteViolation } from "../access/cross-site.ts";
import { AppError } from "../errors.ts";
import { baseProcedure } from "./init.ts";
import type { ServerContext } from "./context.ts";

/**
 * Procedure builders named for the access they require. Each adds `deps` (the server's services) to
 * ctx here, in middleware, so the public Context type stays free of them.
 */
const withDeps = baseProcedure.use(({ ctx, next }) => next({ ctx: { deps: (ctx as ServerContext).deps } }));

/** Anyone may call; nothing about the caller is resolved. */
export const anonymousProcedure = withDeps;

/**
 * Anyone may call, but a browser only from the console's own origin, with or without a cookie: the
 * sign-in endpoints, where a cross-site form could otherwise log a victim into the attacker's account
 * (login CSRF). Cookie-carrying writes to any route are checked by the app's request hook as well.
 */
export const sameOriginProcedure = withDeps.use(({ ctx, next }) => {
  const violation = crossSiteViolation(ctx.request, ctx.deps.config.publicOrigins);
  if (violation) throw new AppError("CROSS_SITE_REQUEST", `Cross-site write refused (${violation})`);
  return next();
});

/**
 * Data access: an API key or a session, or anonymous when neither is presented. A presented but
 * invalid credential is a 401, never anonymous.
 */
export const dataAccessProcedure = withDeps.use(async ({ ctx, next }) => {
  const access = await ctx.deps.access.resolve({ sessionToken: ctx.sessionToken, apiKey: ctx.apiKey });
  return next({ ctx: { access } });
});

/**
 * Console operations: an account session is required. An API key cannot act for the user (403); no
 * credentials at all is 401.
 */
export const sessionProcedure = withDeps.use(async ({ ctx, next }) => {
  const access = await requireConsoleSession(ctx.deps.access, ctx);
  return next({ ctx: { access } });
});
