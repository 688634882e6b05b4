import { revokeOtherSessions } from "../auth/sessions.ts";
import { sessionProcedure } from "../trpc/procedures.ts";
import { ZRevokeOtherSessionsRequest, ZRevokeOtherSessionsResponse } from "./revoke-other-sessions.types.ts";

/** POST /console/sessions/revoke-others: end every other session of the account; API keys keep working. */
export const revokeOtherSessionsProcedure = sessionProcedure
  .input(ZRevokeOtherSessionsRequest)
  .output(ZRevokeOtherSessionsResponse)
  .mutation(async ({ ctx }) => {
    const revoked = await revokeOtherSessions(ctx.deps.db, ctx.deps.clock, ctx.deps.credentials, ctx.access.userId, ctx.access.sessionId);
    ctx.deps.log.info({ user_id: ctx.access.userId, revoked }, "other sessions revoked");
    return { revoked };
  });
