import { revokeSession } from "../auth/sessions.ts";
import { sessionProcedure } from "../trpc/procedures.ts";
import type { ConsoleEnv } from "./env.ts";
import { RevokeSessionResponse, SessionIdInput } from "../contract/console.ts";

/** DELETE /console/sessions/:id: end one of the account's sessions; ending the current one clears the cookie. */
export const revokeSessionProcedure = (env: ConsoleEnv) =>
  sessionProcedure
    .input(SessionIdInput)
    .output(RevokeSessionResponse)
    .mutation(async ({ ctx, input }) => {
      await revokeSession(env.db, env.clock, env.revocations, ctx.access.userId, input.id);
      const current = input.id === ctx.access.sessionId;
      if (current) ctx.setSessionCookie(null);
      env.log.info({ user_id: ctx.access.userId, session_id: input.id, current }, "session revoked");
      return { revoked: true as const, current };
    });
