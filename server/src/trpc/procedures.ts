import { crossSiteViolation } from "../access/cross-site.ts";
import { requireConsoleSession } from "../access/resolver.ts";
import { AppError } from "../errors.ts";
import type { ServerContext } from "./context.ts";
import { baseProcedure } from "./init.ts";

/**
 * Procedure builders named for the access they require. Who is calling is resolved here, in
 * middleware, from the caller checks the wiring put on the server's context; a procedure's own
 * dependencies come from its domain's env, which its router is built with.
 */
const checksOf = (ctx: unknown) => (ctx as ServerContext).checks;

/** Anyone may call; nothing about the caller is resolved. */
export const anonymousProcedure = baseProcedure;

/**
 * Anyone may call, but a browser only from the console's own origin, with or without a cookie: the
 * sign-in endpoints, where a cross-site form could otherwise log a victim into the attacker's account
 * (login CSRF). Cookie-carrying writes to any route are checked by the app's request hook as well.
 */
export const sameOriginProcedure = baseProcedure.use(({ ctx, next }) => {
  const violation = crossSiteViolation(ctx.request, checksOf(ctx).publicOrigins);
  if (violation) throw new AppError("CROSS_SITE_REQUEST", `Cross-site write refused (${violation})`);
  return next();
});

/**
 * Console operations: an account session is required. An API key cannot act for the user (403); no
 * credentials at all is 401.
 */
export const sessionProcedure = baseProcedure.use(async ({ ctx, next }) => {
  const access = await requireConsoleSession(checksOf(ctx).access, ctx);
  return next({ ctx: { access } });
});

/**
 * The session an anonymous procedure's caller may have: its account when the cookie is live, null
 * otherwise (a stale or invalid cookie is not an error there, e.g. POST /contact).
 */
export async function optionalSessionUser(ctx: { sessionToken: string | null }): Promise<string | null> {
  if (ctx.sessionToken === null) return null;
  const resolver = checksOf(ctx).access;
  try {
    const access = await resolver.resolve({ sessionToken: ctx.sessionToken, apiKey: null });
    return access.kind === "session" ? access.userId : null;
  } catch {
    return null;
  }
}
