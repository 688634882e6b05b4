import { router } from "../trpc/init.ts";
import type { WebhookEnv } from "./env.ts";
import { createSubscriptionProcedure } from "./subscriptions/create-subscription.ts";
import { deleteSubscriptionProcedure } from "./subscriptions/delete-subscription.ts";
import { getDeliveryProcedure } from "./delivery-log/get-delivery.ts";
import { listDeliveriesProcedure } from "./delivery-log/list-deliveries.ts";
import { listSubscriptionsProcedure } from "./subscriptions/list-subscriptions.ts";
import { retryDeliveriesProcedure } from "./delivery-log/retry-deliveries.ts";
import { retryDeliveryProcedure } from "./delivery-log/retry-delivery.ts";
import { revokePreviousSecretProcedure } from "./subscriptions/revoke-previous-secret.ts";
import { rotateSecretProcedure } from "./subscriptions/rotate-secret.ts";
import { sendTestEventProcedure } from "./delivery-log/send-test-event.ts";
import { updateSubscriptionProcedure } from "./subscriptions/update-subscription.ts";
import { listenRouter } from "./listen/router.ts";

/** Webhook subscriptions, their deliveries and listen sessions (docs/webhooks.md), built from the domain's env. */
export const webhooksRouter = (env: WebhookEnv) =>
  router({
    list: listSubscriptionsProcedure(env),
    create: createSubscriptionProcedure(env),
    update: updateSubscriptionProcedure(env),
    delete: deleteSubscriptionProcedure(env),
    sendTest: sendTestEventProcedure(env),
    listDeliveries: listDeliveriesProcedure(env),
    getDelivery: getDeliveryProcedure(env),
    retryDelivery: retryDeliveryProcedure(env),
    retryDeliveries: retryDeliveriesProcedure(env),
    rotateSecret: rotateSecretProcedure(env),
    revokePreviousSecret: revokePreviousSecretProcedure(env),
    listen: listenRouter(env),
  });
