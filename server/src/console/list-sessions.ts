import { listSessions } from "../auth/sessions.ts";
import { toIso } from "../contract/common.ts";
import { sessionProcedure } from "../trpc/procedures.ts";
import type { ConsoleEnv } from "./env.ts";
import { NoInput, SessionList } from "../contract/console.ts";

/** GET /console/sessions: the account's live login sessions, newest first; `current` marks this one. */
export const listSessionsProcedure = (env: ConsoleEnv) =>
  sessionProcedure
    .input(NoInput)
    .output(SessionList)
    .query(async ({ ctx }) => {
      const sessions = await listSessions(env.db, env.clock, ctx.access.userId);
      return {
        items: sessions.map((s) => ({ id: s.id, created_at: toIso(s.createdAt), expires_at: toIso(s.expiresAt), current: s.id === ctx.access.sessionId })),
      };
    });
