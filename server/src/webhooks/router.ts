import { router } from "../trpc/init.ts";
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

export const webhooksRouter = router({
  list: listSubscriptionsProcedure,
  create: createSubscriptionProcedure,
  update: updateSubscriptionProcedure,
  delete: deleteSubscriptionProcedure,
  sendTest: sendTestEventProcedure,
  listDeliveries: listDeliveriesProcedure,
  getDelivery: getDeliveryProcedure,
  retryDelivery: retryDeliveryProcedure,
  retryDeliveries: retryDeliveriesProcedure,
  rotateSecret: rotateSecretProcedure,
  revokePreviousSecret: revokePreviousSecretProcedure,
  listen: listenRouter,
});
