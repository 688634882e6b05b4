import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { RotateSecretRequest, RotateSecretResponse } from "../../contract/webhooks.ts";
import { rotateSecret } from "./subscriptions.ts";

/** POST /console/webhooks/:id/rotate-secret: a new secret now; the old one signs the Previous header during the grace period. */
export const rotateSecretProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(RotateSecretRequest)
    .output(RotateSecretResponse)
    .mutation(({ ctx, input }) => rotateSecret(env, ctx.access.userId, input.id, input.grace_seconds));
