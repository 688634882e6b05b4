// A webhook receiver in an h3 v2 app (Nitro, Nuxt server routes work the same way).
import { H3, serve } from "h3";
import { createEventDeduplicator, isWebhookVerificationError, verifyH3Event } from "@ir21/sdk/webhooks";

const secrets = [process.env.IR21_WEBHOOK_SECRET!];
const dedupe = createEventDeduplicator();

const app = new H3().post("/webhooks/ir21", async (event) => {
  try {
    const delivery = await verifyH3Event(event, { secrets });
    await dedupe.run(delivery, () => console.log("catch up after", delivery.type, delivery.dataset_version));
    return new Response(null, { status: 204 });
  } catch (error) {
    if (isWebhookVerificationError(error)) return new Response(error.code, { status: 400 });
    throw error;
  }
});

serve(app, { port: 3000 });
