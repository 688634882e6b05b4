import { router } from "../trpc/init.ts";
import { createSubscriptionProcedure } from "./create-subscription.ts";
import { deleteSubscriptionProcedure } from "./delete-subscription.ts";
import { getDeliveryProcedure } from "./get-delivery.ts";
import { listDeliveriesProcedure } from "./list-deliveries.ts";
import { listSubscriptionsProcedure } from "./list-subscriptions.ts";
import { retryDeliveriesProcedure } from "./retry-deliveries.ts";
import { retryDeliveryProcedure } from "./retry-delivery.ts";
import { revokePreviousSecretProcedure } from "./revoke-previous-secret.ts";
import { rotateSecretProcedure } from "./rotate-secret.ts";
import { sendTestEventProcedure } from "./send-test-event.ts";
import { updateSubscriptionProcedure } from "./update-subscription.ts";

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
});
