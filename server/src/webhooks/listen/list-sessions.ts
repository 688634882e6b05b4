import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { ZListSessionsRequest, ZListSessionsResponse } from "./list-sessions.types.ts";
import { listListenSessions } from "./sessions.ts";

/** GET /console/listen-sessions: the account's listen sessions, open and recently ended, newest first. */
export const listSessionsProcedure = sessionProcedure
  .input(ZListSessionsRequest)
  .output(ZListSessionsResponse)
  .query(async ({ ctx }) => ({ items: await listListenSessions(webhookEnv(ctx.deps), ctx.access.userId) }));
