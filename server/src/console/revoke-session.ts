import { revokeSession } from "../auth/sessions.ts";
import { sessionProcedure } from "../trpc/procedures.ts";
import { ZRevokeSessionRequest, ZRevokeSessionResponse } from "./revoke-session.types.ts";

/** DELETE /console/sessions/:id: end one of the account's sessions; ending the current one clears the cookie. */
export const revokeSessionProcedure = sessionProcedure
  .input(ZRevokeSessionRequest)
  .output(ZRevokeSessionResponse)
  .mutation(async ({ ctx, input }) => {
    await revokeSession(ctx.deps.db, ctx.deps.clock, ctx.deps.credentials, ctx.access.userId, input.id);
    const current = input.id === ctx.access.sessionId;
    if (current) ctx.setSessionCookie(null);
    ctx.deps.log.info({ user_id: ctx.access.userId, session_id: input.id, current }, "session revoked");
    return { revoked: true as const, current };
  });
