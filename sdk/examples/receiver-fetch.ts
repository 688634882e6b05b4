// A webhook receiver on the Fetch API: Cloudflare Workers (below), Deno.serve, Bun.serve, Next.js
// route handlers. Web Crypto only, no Node APIs.
import { isWebhookVerificationError, verifyRequest } from "@ir21/sdk/webhooks";

interface Env {
  IR21_WEBHOOK_SECRET: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    try {
      const event = await verifyRequest(request, { secrets: env.IR21_WEBHOOK_SECRET });
      // Hand the event to a queue here; answer within seconds.
      return Response.json({ received: event.id }, { status: 202 });
    } catch (error) {
      if (isWebhookVerificationError(error)) return new Response(error.code, { status: 400 });
      throw error;
    }
  },
};
