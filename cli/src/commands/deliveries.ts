import { group, leaf, type Ir21Command } from "../command.ts";
import { UsageError } from "../errors.ts";
import { humanTime } from "../output.ts";
import type { Runtime } from "../runtime.ts";
import type { ConsoleClient } from "../sdk.ts";
import { integer } from "./shared.ts";

type DeliveryStatus = NonNullable<Parameters<ConsoleClient["webhooks"]["listDeliveries"]["query"]>[0]["status"]>;
type DeliveryPage = Awaited<ReturnType<ConsoleClient["webhooks"]["listDeliveries"]["query"]>>;

const STATUSES = ["pending", "delivered", "failed", "cancelled"] as const satisfies readonly DeliveryStatus[];

/** The contract's retry-batch limit ("Limits": delivery_ids 1 to 20 entries). */
export const RETRY_BATCH_MAX = 20;
/** The contract's page-size limit for the delivery list (1 to 100). */
const PAGE_MAX = 100;

const WEBHOOK_FLAG = {
  webhook: { type: "string", alias: "w", valueHint: "whk_…", description: "The subscription (optional when the account has only one)" },
} as const;

/** Deliveries of a listen session (`ir21 listen`) instead of a subscription's. */
const SESSION_FLAG = {
  session: { type: "string", valueHint: "lsn_…", description: "A listen session's deliveries instead of a subscription's (the id `ir21 listen` prints)" },
} as const;

export function deliveriesCommand(rt: Runtime): Ir21Command {
  return group({
    category: "Webhooks",
    summary: "Inspect and retry webhook deliveries",
    details: "A delivery is one event sent to one subscription: pending, delivered, failed or cancelled. A retry keeps the event id.",
    examples: ["ir21 deliveries list --webhook whk_01jd… --status failed", "ir21 deliveries retry --webhook whk_01jd… --status failed"],
    commands: {
      list: leaf({
        summary: "List a subscription's deliveries, newest first",
        examples: [
          "ir21 deliveries list --webhook whk_01jd…",
          "ir21 deliveries list -w whk_01jd… --status failed --all",
          "ir21 --json deliveries list -w whk_01jd… --limit 100 --cursor eyJ0Ijo…",
        ],
        args: {
          ...WEBHOOK_FLAG,
          ...SESSION_FLAG,
          status: { type: "enum", options: [...STATUSES], description: "Only deliveries in this state" },
          "event-id": { type: "string", valueHint: "evt_…", description: "Only deliveries of this event" },
          limit: { type: "string", valueHint: "1-100", default: "20", description: "Deliveries per page" },
          cursor: { type: "string", valueHint: "cursor", description: "Continue from a previous page's next_cursor" },
          all: { type: "boolean", description: "Follow next_cursor to the end and list every match" },
        },
        run: async (args) => {
          const client = rt.console();
          const source = await deliverySource(rt, client, args);
          const id = source.id;
          const limit = integer(args.limit, "--limit", { min: 1, max: PAGE_MAX });
          const filter = { id, status: args.status as DeliveryStatus | undefined, event_id: args["event-id"] };
          let page: DeliveryPage;
          if (args.all) {
            if (args.cursor) throw new UsageError("--all starts from the beginning: it does not take --cursor");
            const items = await everyDelivery(client, filter, source.listen);
            page = { items, total: items.length, next_cursor: null };
          } else {
            page = await (source.listen ? client.webhooks.listen.listDeliveries : client.webhooks.listDeliveries).query({ ...filter, limit, cursor: args.cursor });
          }
          rt.out.result(page, () => {
            rt.out.table(
              page.items,
              [
                { header: "ID", value: (d) => d.id },
                { header: "EVENT", value: (d) => d.event_type.replace(/^ir21\./, "") },
                { header: "STATUS", value: (d) => d.status, style: (text, d) => statusColour(rt, d.status, text) },
                { header: "ATTEMPTS", value: (d) => d.attempts },
                { header: "HTTP", value: (d) => d.response_status },
                { header: "CREATED", value: (d) => humanTime(d.created_at) },
                { header: "NEXT ATTEMPT", value: (d) => humanTime(d.next_attempt_at) },
                { header: "LAST ERROR", value: (d) => (d.last_error ? truncate(d.last_error, 60) : "") },
              ],
              "No deliveries match.",
            );
            if (page.items.length > 0) rt.out.info(`${page.items.length} of ${page.total}`);
            if (page.next_cursor) rt.out.info(`More: ${rt.commandPrefix()} deliveries list ${source.listen ? "--session" : "-w"} ${id} --cursor ${page.next_cursor} (or --all)`);
          });
        },
      }),
      show: leaf({
        summary: "Show one delivery: its attempts, what the receiver answered, and the event it carries",
        examples: [
          "ir21 deliveries show dlv_01jd… --webhook whk_01jd…",
          "ir21 deliveries show dlv_01jd… --session lsn_01jd…",
          "ir21 --json deliveries show dlv_01jd… -w whk_01jd… | jq '.attempts[-1].response'",
        ],
        args: {
          id: { type: "positional", required: true, description: "The delivery's id (dlv_…)" },
          ...WEBHOOK_FLAG,
          ...SESSION_FLAG,
        },
        run: async (args) => {
          const client = rt.console();
          const source = await deliverySource(rt, client, args);
          const data = await (source.listen ? client.webhooks.listen.getDelivery : client.webhooks.getDelivery).query({ id: source.id, deliveryId: args.id });
          rt.out.result(data, () => {
            const { item, attempts, event } = data;
            rt.out.fields([
              ["Delivery", item.id],
              ["Status", item.status],
              ["Event", `${item.event_id} (${item.event_type})${event.test ? " test" : ""}`],
              ["Attempts", item.attempts],
              ["Response", item.response_status],
              ["Last error", item.last_error],
              ["Created", humanTime(item.created_at)],
              ["Next attempt", humanTime(item.next_attempt_at)],
            ]);
            rt.out.line();
            rt.out.table(
              attempts,
              [
                { header: "ATTEMPT", value: (a) => a.id },
                { header: "AT", value: (a) => humanTime(a.attempted_at) },
                { header: "HTTP", value: (a) => a.response_status },
                { header: "DURATION", value: (a) => `${a.duration_ms} ms` },
                { header: "ERROR", value: (a) => a.error ?? "" },
              ],
              "No attempts yet.",
            );
            const answered = attempts.findLast((a) => a.response !== null);
            if (answered?.response) {
              rt.out.line();
              rt.out.line(`The receiver answered (attempt ${answered.id}): HTTP ${answered.response_status} in ${answered.duration_ms} ms`);
              for (const [name, value] of Object.entries(answered.response.headers)) rt.out.line(`  ${name}: ${value}`);
              rt.out.line();
              rt.out.line(answered.response.body + (answered.response.body_truncated ? "\n… (cut at 4 KiB)" : ""));
            }
            rt.out.line();
            rt.out.line(JSON.stringify(event, null, 2));
          });
        },
      }),
      retry: leaf({
        summary: "Queue deliveries again (same event id): by id, or every one with --status",
        details: [
          "Ids are sent in batches of at most 20 (the service's limit). With --status, every matching",
          "delivery of the subscription is listed first, then retried. Queued only means queued: the",
          "new attempts show up in `ir21 deliveries list`.",
        ].join("\n"),
        variadic: "more-ids",
        examples: ["ir21 deliveries retry dlv_01jd… dlv_01je… --webhook whk_01jd…", "ir21 deliveries retry --webhook whk_01jd… --status failed"],
        args: {
          id: { type: "positional", required: false, description: "A delivery id (dlv_…); give several to retry them together" },
          ...WEBHOOK_FLAG,
          status: { type: "enum", options: [...STATUSES], description: "Retry every delivery in this state (usually failed)" },
        },
        run: async (args) => {
          const ids = [...new Set(args._)];
          if (ids.length > 0 && args.status) throw new UsageError("Give delivery ids or --status, not both");
          if (ids.length === 0 && !args.status) throw new UsageError("Name the deliveries to retry: ids, or --status failed");
          const client = rt.console();
          const webhookId = await subscriptionId(rt, client, args.webhook);
          const targets = args.status ? (await everyDelivery(client, { id: webhookId, status: args.status as DeliveryStatus })).map((d) => d.id) : ids;
          const queued: string[] = [];
          const progress = rt.out.progress();
          try {
            for (let start = 0; start < targets.length; start += RETRY_BATCH_MAX) {
              const batch = targets.slice(start, start + RETRY_BATCH_MAX);
              progress.update(`Queuing ${start + batch.length}/${targets.length}…`);
              const result = await client.webhooks.retryDeliveries.mutate({ id: webhookId, delivery_ids: batch });
              queued.push(...result.delivery_ids);
            }
          } finally {
            progress.done();
          }
          const data = { queued: queued.length, delivery_ids: queued };
          if (targets.length === 0) rt.out.info(`No ${args.status} deliveries to retry.`);
          else rt.out.success(`Queued ${queued.length} deliver${queued.length === 1 ? "y" : "ies"} for retry`);
          rt.out.result(data, () => {});
        },
      }),
    },
  });
}

/** Where the deliveries are: a listen session (`--session`) or a subscription (`--webhook`, or the only one). */
async function deliverySource(rt: Runtime, client: ConsoleClient, args: { webhook?: string; session?: string }): Promise<{ id: string; listen: boolean }> {
  if (args.session && args.webhook) throw new UsageError("Give --webhook or --session, not both");
  if (args.session) return { id: args.session, listen: true };
  return { id: await subscriptionId(rt, client, args.webhook), listen: false };
}

/** `--webhook`, or the account's only subscription; several without `--webhook` is a usage error. */
async function subscriptionId(rt: Runtime, client: ConsoleClient, given: string | undefined): Promise<string> {
  if (given) return given;
  const { items } = await client.webhooks.list.query();
  if (items.length === 1) return items[0]!.id;
  if (items.length === 0) throw new UsageError("The account has no webhook subscriptions", "Create one with `ir21 webhooks create`.");
  throw new UsageError(`The account has ${items.length} webhook subscriptions: name one with --webhook`, `One of: ${items.map((s) => s.id).join(", ")}`);
}

async function everyDelivery(client: ConsoleClient, filter: { id: string; status?: DeliveryStatus; event_id?: string }, listen = false): Promise<DeliveryPage["items"]> {
  const items: DeliveryPage["items"] = [];
  let cursor: string | undefined;
  do {
    const page = await (listen ? client.webhooks.listen.listDeliveries : client.webhooks.listDeliveries).query({ ...filter, limit: PAGE_MAX, cursor });
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}

function statusColour(rt: Runtime, status: string, text: string): string {
  if (status === "delivered") return rt.out.c.green(text);
  if (status === "failed") return rt.out.c.red(text);
  if (status === "pending") return rt.out.c.yellow(text);
  return rt.out.c.dim(text);
}

function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
