import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { ZEndSessionRequest, ZEndSessionResponse } from "./end-session.types.ts";
import { announceListenDeliveries } from "./hub.ts";
import { endListenSession, ownListenSession } from "./sessions.ts";

/**
 * DELETE /console/listen-sessions/:id: ends the session for good (it cannot be resumed); the process
 * holding its stream closes it with `end` {reason: "ended"}. Idempotent.
 */
export const endSessionProcedure = sessionProcedure
  .input(ZEndSessionRequest)
  .output(ZEndSessionResponse)
  .mutation(async ({ ctx, input }) => {
    const env = webhookEnv(ctx.deps);
    await ownListenSession(env.db, ctx.access.userId, input.id);
    if (await endListenSession(env.db, { id: input.id, reason: "ended", now: env.clock.now().getTime() })) await announceListenDeliveries(ctx.deps, [input.id]);
    return { ended: true as const };
  });
