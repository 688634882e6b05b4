// A webhook receiver in Express: the route needs the raw body, so mount express.raw() on it
// (and keep express.json() off this path).
import express from "express";
import { isWebhookVerificationError, verifyExpressRequest } from "@ir21/sdk/webhooks";

const app = express();
app.post("/webhooks/ir21", express.raw({ type: "application/json" }), async (req, res) => {
  try {
    const event = await verifyExpressRequest(req, { secrets: [process.env.IR21_WEBHOOK_SECRET!] });
    res.sendStatus(204);
    setImmediate(() => console.log("received", event.id, event.type));
  } catch (error) {
    res.status(isWebhookVerificationError(error) ? 400 : 500).send(isWebhookVerificationError(error) ? error.code : "error");
  }
});
app.listen(3000);
