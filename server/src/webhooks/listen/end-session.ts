import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { EndListenSessionRequest, EndListenSessionResponse } from "../../contract/listen.ts";
import { announceListenDeliveries } from "./hub.ts";
import { endListenSessionForGood } from "./sessions.ts";
import { ownListenSession } from "./ownership.ts";

/**
 * DELETE /console/listen-sessions/:id: ends the session for good (it cannot be resumed, even if its
 * stream already closed); the process holding its stream closes it with `end` {reason: "ended"}.
 * Idempotent. `ir21 listen` calls it on Ctrl-C.
 */
export const endSessionProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(EndListenSessionRequest)
    .output(EndListenSessionResponse)
    .mutation(async ({ ctx, input }) => {
      await ownListenSession(env.db, ctx.access.userId, input.id);
      if (await endListenSessionForGood(env.db, { id: input.id, now: env.clock.now().getTime() })) await announceListenDeliveries(env, [input.id]);
      return { ended: true as const };
    });
