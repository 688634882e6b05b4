import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { RevokePreviousSecretRequest, RevokePreviousSecretResponse } from "../../contract/webhooks.ts";
import { revokePreviousSecret } from "./subscriptions.ts";

/** DELETE /console/webhooks/:id/previous-secret: end the grace period now (e.g. the old secret leaked). */
export const revokePreviousSecretProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(RevokePreviousSecretRequest)
    .output(RevokePreviousSecretResponse)
    .mutation(async ({ ctx, input }) => {
      await revokePreviousSecret(env, ctx.access.userId, input.id);
      return { revoked: true as const };
    });
