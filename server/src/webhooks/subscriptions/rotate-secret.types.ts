import { z } from "zod";
import { IsoTime } from "../../contract/common.ts";
import { LIMITS } from "../../contract/limits.ts";
import { WebhookSubscription } from "../../contract/webhooks.ts";

export const ZRotateSecretRequest = z.strictObject({
  id: z.string().max(64),
  grace_seconds: z.number().int().min(LIMITS.graceSeconds.min).max(LIMITS.graceSeconds.max).default(LIMITS.graceSeconds.default),
});
export const ZRotateSecretResponse = z.object({ item: WebhookSubscription, secret: z.string(), previous_secret_expires_at: IsoTime.nullable() });
