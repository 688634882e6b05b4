import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { ZRotateSecretRequest, ZRotateSecretResponse } from "./rotate-secret.types.ts";
import { rotateSecret } from "./subscriptions.ts";

/** POST /console/webhooks/:id/rotate-secret: a new secret now; the old one signs the Previous header during the grace period. */
export const rotateSecretProcedure = sessionProcedure
  .input(ZRotateSecretRequest)
  .output(ZRotateSecretResponse)
  .mutation(({ ctx, input }) => rotateSecret(webhookEnv(ctx.deps), ctx.access.userId, input.id, input.grace_seconds));
