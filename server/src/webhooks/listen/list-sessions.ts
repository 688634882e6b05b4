import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { ListListenSessionsRequest, ListListenSessionsResponse } from "../../contract/listen.ts";
import { listListenSessions } from "./sessions.ts";

/** GET /console/listen-sessions: the account's listen sessions, open and recently ended, newest first. */
export const listSessionsProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(ListListenSessionsRequest)
    .output(ListListenSessionsResponse)
    .query(async ({ ctx }) => ({ items: await listListenSessions(env, ctx.access.userId) }));
