import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { ZRevokePreviousSecretRequest, ZRevokePreviousSecretResponse } from "./revoke-previous-secret.types.ts";
import { revokePreviousSecret } from "./subscriptions.ts";

/** DELETE /console/webhooks/:id/previous-secret: end the grace period now (e.g. the old secret leaked). */
export const revokePreviousSecretProcedure = sessionProcedure
  .input(ZRevokePreviousSecretRequest)
  .output(ZRevokePreviousSecretResponse)
  .mutation(async ({ ctx, input }) => {
    await revokePreviousSecret(webhookEnv(ctx.deps), ctx.access.userId, input.id);
    return { revoked: true as const };
  });
