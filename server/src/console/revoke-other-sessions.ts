import { revokeOtherSessions } from "../auth/sessions.ts";
import { sessionProcedure } from "../trpc/procedures.ts";
import type { ConsoleEnv } from "./env.ts";
import { NoInput, RevokeOthersResponse } from "../contract/console.ts";

/** POST /console/sessions/revoke-others: end every other session of the account; API keys keep working. */
export const revokeOtherSessionsProcedure = (env: ConsoleEnv) =>
  sessionProcedure
    .input(NoInput)
    .output(RevokeOthersResponse)
    .mutation(async ({ ctx }) => {
      const revoked = await revokeOtherSessions(env.db, env.clock, env.revocations, ctx.access.userId, ctx.access.sessionId);
      env.log.info({ user_id: ctx.access.userId, revoked }, "other sessions revoked");
      return { revoked };
    });
