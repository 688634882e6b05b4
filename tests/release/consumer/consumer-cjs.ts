/**
 * A CommonJS consumer of the published @ir21/sdk. tests/release/pack.test.ts copies this file into a
 * project whose package.json says `"type": "commonjs"`, so `tsc` (module NodeNext) checks it against the
 * `require` side of the exports map (the .d.cts declarations) and compiles the imports to `require()`;
 * Node then loads dist/*.cjs. It runs against a live server and prints one JSON report on stdout.
 *
 * Inputs (environment): IR21_BASE_URL, IR21_DELIVERY (a signed delivery: {headers, body, secret, now}).
 */
import { createClient, createConsoleClient, isIr21ApiError, Ir21ApiError, type DataClientOptions } from "@ir21/sdk";
import { verifyWebhook, WebhookVerificationError, type EventPayload } from "@ir21/sdk/webhooks";

async function main() {
  const baseUrl = process.env.IR21_BASE_URL!;
  const delivery = JSON.parse(process.env.IR21_DELIVERY!) as { headers: Record<string, string>; body: string; secret: string; now: number };

  // Anonymous: the public projection; a per-call timeout is accepted.
  const options = { baseUrl, timeoutMs: 10_000, retry: { maxAttempts: 2 } } satisfies DataClientOptions;
  const ir21 = createClient(options);
  const meta = await ir21.meta({ timeoutMs: 5_000 });
  const lookup = await ir21.lookup("+8613912345678");
  const denied = await ir21.numberRanges.list().catch((error: unknown) => error);

  // The console client needs tRPC and superjson: bundled, so this works with nothing else installed.
  const console_ = createConsoleClient({ baseUrl });
  const me = await console_.auth.me.query().catch((error: unknown) => error);

  const event: EventPayload = await verifyWebhook({ rawBody: delivery.body, headers: delivery.headers, secrets: [delivery.secret], now: new Date(delivery.now * 1000) });
  const tampered = await verifyWebhook({ rawBody: delivery.body + " ", headers: delivery.headers, secrets: [delivery.secret], now: new Date(delivery.now * 1000) }).catch((error: unknown) => error);

  process.stdout.write(
    JSON.stringify({
      moduleSystem: typeof require === "function" && typeof module === "object" ? "commonjs" : "esm",
      version: typeof meta.data.dataset_version === "string",
      rangeHolder: lookup.data.range_holder,
      denied: isIr21ApiError(denied, "UNAUTHORIZED") && denied instanceof Ir21ApiError ? denied.status : null,
      me: isIr21ApiError(me) ? me.code : "signed in?",
      event: event.type,
      tampered: tampered instanceof WebhookVerificationError ? tampered.code : null,
    }),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
