import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { ZEndSessionRequest, ZEndSessionResponse } from "./end-session.types.ts";
import { announceListenDeliveries } from "./hub.ts";
import { endListenSessionForGood, ownListenSession } from "./sessions.ts";

/**
 * DELETE /console/listen-sessions/:id: ends the session for good (it cannot be resumed, even if its
 * stream already closed); the process holding its stream closes it with `end` {reason: "ended"}.
 * Idempotent. `ir21 listen` calls it on Ctrl-C.
 */
export const endSessionProcedure = sessionProcedure
  .input(ZEndSessionRequest)
  .output(ZEndSessionResponse)
  .mutation(async ({ ctx, input }) => {
    const env = webhookEnv(ctx.deps);
    await ownListenSession(env.db, ctx.access.userId, input.id);
    if (await endListenSessionForGood(env.db, { id: input.id, now: env.clock.now().getTime() })) await announceListenDeliveries(ctx.deps, [input.id]);
    return { ended: true as const };
  });
