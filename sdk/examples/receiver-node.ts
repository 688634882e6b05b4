// A webhook receiver on node:http: verify, deduplicate, answer fast, work later.
import { createServer } from "node:http";
import { createEventDeduplicator, isWebhookVerificationError, verifyNodeRequest, type EventPayload } from "@ir21/sdk/webhooks";

// During a rotation grace period, hold both the new and the previous secret.
const secrets = [process.env.IR21_WEBHOOK_SECRET!, process.env.IR21_WEBHOOK_PREVIOUS_SECRET].filter((s): s is string => Boolean(s));
const dedupe = createEventDeduplicator();
const queue: EventPayload[] = [];

createServer(async (req, res) => {
  try {
    const event = await verifyNodeRequest(req, { secrets });
    const outcome = await dedupe.run(event, () => queue.push(event)); // your job queue or a DB transaction
    res.writeHead(outcome.duplicate ? 200 : 202).end();
  } catch (error) {
    res.writeHead(isWebhookVerificationError(error) ? 400 : 500).end();
  }
}).listen(3000);
