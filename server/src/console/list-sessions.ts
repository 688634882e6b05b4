import { listSessions } from "../auth/sessions.ts";
import { toIso } from "../contract/common.ts";
import { sessionProcedure } from "../trpc/procedures.ts";
import { ZListSessionsRequest, ZListSessionsResponse } from "./list-sessions.types.ts";

/** GET /console/sessions: the account's live login sessions, newest first; `current` marks this one. */
export const listSessionsProcedure = sessionProcedure
  .input(ZListSessionsRequest)
  .output(ZListSessionsResponse)
  .query(async ({ ctx }) => {
    const sessions = await listSessions(ctx.deps.db, ctx.deps.clock, ctx.access.userId);
    return {
      items: sessions.map((s) => ({ id: s.id, created_at: toIso(s.createdAt), expires_at: toIso(s.expiresAt), current: s.id === ctx.access.sessionId })),
    };
  });
