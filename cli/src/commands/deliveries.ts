import { group, leaf, type Ir21Command } from "../command.ts";
import { UsageError } from "../errors.ts";
import { humanTime } from "../output.ts";
import type { Runtime } from "../runtime.ts";
import { apiFailureOf, type ConsoleClient } from "../sdk.ts";
import { idKind, integer, moreHint } from "./shared.ts";

type DeliveryStatus = NonNullable<Parameters<ConsoleClient["webhooks"]["listDeliveries"]["query"]>[0]["status"]>;
type DeliveryPage = Awaited<ReturnType<ConsoleClient["webhooks"]["listDeliveries"]["query"]>>;

const STATUSES = ["pending", "delivered", "failed", "cancelled"] as const satisfies readonly DeliveryStatus[];

/** The contract's retry-batch limit ("Limits": delivery_ids 1 to 20 entries). */
export const RETRY_BATCH_MAX = 20;
/** The contract's page-size limit for the delivery list (1 to 100). */
const PAGE_MAX = 100;
/** Subscriptions asked at once when looking for a delivery's (an account has at most 20). */
const FIND_CONCURRENCY = 5;

/** The 0.1 flags that named where the deliveries are; the id is an argument now (its prefix says which kind). */
const OLD_SOURCE_SPELLINGS = {
  webhook: { alias: "w", positional: "webhook-or-session-id" },
  session: { positional: "webhook-or-session-id" },
} as const;

/** Where deliveries are: a subscription (whk_…) or a listen session (lsn_…), told apart by the prefix. */
const SOURCE_ID = {
  type: "positional",
  required: false,
  valueHint: "webhook-id|session-id",
  description: "The subscription (whk_…) or listen session (lsn_…); optional when the account has one subscription",
} as const;

export function deliveriesCommand(rt: Runtime): Ir21Command {
  return group({
    category: "Webhooks",
    summary: "Inspect and retry webhook deliveries",
    details: [
      "A delivery is one event sent to one subscription (or one `ir21 listen` session): pending, delivered,",
      "failed or cancelled. A retry keeps the event id. Ids are told apart by their prefix: whk_ (a",
      "subscription), lsn_ (a listen session), dlv_ (a delivery).",
    ].join("\n"),
    examples: ["ir21 deliveries list whk_01jd… --status failed", "ir21 deliveries show dlv_01jd…", "ir21 deliveries retry whk_01jd… --status failed"],
    commands: {
      list: leaf({
        summary: "List a subscription's (or listen session's) deliveries, newest first",
        details: "--json prints the array of deliveries (every page with --all; see `ir21 api` for the raw page with its total).",
        examples: [
          "ir21 deliveries list whk_01jd…",
          "ir21 deliveries list whk_01jd… --status failed --all",
          "ir21 deliveries list lsn_01jd…",
          "ir21 --json deliveries list whk_01jd… --limit 100 --cursor eyJ0Ijo…",
        ],
        oldSpellings: OLD_SOURCE_SPELLINGS,
        args: {
          "webhook-or-session-id": SOURCE_ID,
          status: { type: "enum", options: [...STATUSES], description: "Only deliveries in this state" },
          "event-id": { type: "string", valueHint: "evt_…", description: "Only deliveries of this event" },
          limit: { type: "string", valueHint: "1-100", default: "20", description: "Deliveries per page" },
          cursor: { type: "string", valueHint: "cursor", description: "Continue from a previous page (the hint after a page names it)" },
          all: { type: "boolean", description: "Follow every page to the end and list every match" },
        },
        run: async (args) => {
          const client = rt.console();
          const source = await deliverySource(client, args["webhook-or-session-id"]);
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
          rt.out.result(
            page.items,
            () => {
              rt.out.table(
                page.items,
                [
                  { header: "ID", value: (d) => d.id, id: true },
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
            },
            page,
          );
          moreHint(rt, page.items.length, page.next_cursor, `deliveries list ${id}${args.status ? ` --status ${args.status}` : ""}${args["event-id"] ? ` --event-id ${args["event-id"]}` : ""}`);
        },
      }),
      show: leaf({
        summary: "Show one delivery: its attempts, what the receiver answered, and the event it carries",
        details: [
          "Without <webhook-id|session-id> the delivery is looked for in each of the account's subscriptions",
          "(at most 20, the service's limit): the API finds a delivery through its subscription only. A listen",
          "session's delivery needs the session's id (lsn_…), which `ir21 listen` prints.",
          "--json prints {item, attempts, event}: the delivery, its attempts (with what the receiver answered) and the event.",
        ].join("\n"),
        examples: [
          "ir21 deliveries show dlv_01jd…",
          "ir21 deliveries show dlv_01jd… whk_01jd…",
          "ir21 deliveries show dlv_01jd… lsn_01jd…",
          "ir21 --json deliveries show dlv_01jd… | jq '.attempts[-1].response'",
        ],
        oldSpellings: OLD_SOURCE_SPELLINGS,
        args: {
          "delivery-id": { type: "positional", required: true, description: "The delivery's id (dlv_…), e.g. from `ir21 deliveries list` or `ir21 webhooks test`" },
          "webhook-or-session-id": { ...SOURCE_ID, description: "Its subscription (whk_…) or listen session (lsn_…); found among the subscriptions when left out" },
        },
        run: async (args) => {
          const client = rt.console();
          const deliveryId = args["delivery-id"];
          const given = args["webhook-or-session-id"];
          const source = given ? await deliverySource(client, given) : await sourceOfDelivery(client, deliveryId);
          const data = source.found ?? (await (source.listen ? client.webhooks.listen.getDelivery : client.webhooks.getDelivery).query({ id: source.id, deliveryId }));
          rt.out.result(data, () => {
            const { item, attempts, event } = data;
            rt.out.fields([
              ["Delivery", item.id],
              [source.listen ? "Session" : "Webhook", source.id],
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
                { header: "ATTEMPT", value: (a) => a.id, id: true },
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
          "Give delivery ids (dlv_…), or a subscription's id (whk_…) with --status to retry every delivery",
          "of it in that state; the two kinds of id are told apart by their prefix. Without a whk_ id the",
          "subscription is the account's only one, or the one the first delivery is found in. Ids are sent",
          "in batches of at most 20 (the service's limit). Queued only means queued: the new attempts show",
          "up in `ir21 deliveries list`. --json prints {queued, delivery_ids}.",
        ].join("\n"),
        usage: "[<webhook-id>] [<delivery-id>...]",
        variadic: "more ids",
        examples: ["ir21 deliveries retry dlv_01jd… dlv_01je…", "ir21 deliveries retry whk_01jd… --status failed", "ir21 deliveries retry whk_01jd… dlv_01jd…"],
        oldSpellings: { webhook: { alias: "w", positional: "ids" } },
        args: {
          ids: { type: "positional", required: false, valueHint: "webhook-id|delivery-id", description: "Delivery ids (dlv_…) to retry, and optionally their subscription's id (whk_…)" },
          status: { type: "enum", options: [...STATUSES], description: "Retry every delivery of the subscription in this state (usually failed)" },
        },
        run: async (args) => {
          const words = [...new Set(args._ as string[])];
          const webhooks = words.filter((word) => idKind(word) === "webhook");
          const ids = words.filter((word) => idKind(word) !== "webhook");
          const stray = ids.find((word) => idKind(word) !== "delivery");
          if (stray !== undefined) throw new UsageError(`"${stray}" is not a delivery id (dlv_…) or a subscription id (whk_…)`, "e.g. ir21 deliveries retry dlv_01jd… dlv_01je…, or ir21 deliveries retry whk_01jd… --status failed");
          if (webhooks.length > 1) throw new UsageError(`Retry the deliveries of one subscription at a time (got ${webhooks.join(", ")})`);
          if (ids.length > 0 && args.status) throw new UsageError("Give delivery ids or --status, not both");
          if (ids.length === 0 && !args.status) throw new UsageError("Name the deliveries to retry: delivery ids, or --status failed", "e.g. ir21 deliveries retry dlv_01jd…, or ir21 deliveries retry whk_01jd… --status failed");
          const client = rt.console();
          const webhookId = webhooks[0] ?? (ids.length > 0 ? (await sourceOfDelivery(client, ids[0]!, { forRetry: true })).id : await onlySubscription(client));
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
          else rt.out.success(`Queued ${queued.length} deliver${queued.length === 1 ? "y" : "ies"} of ${webhookId} for retry`);
          rt.out.result(data, () => {});
        },
      }),
    },
  });
}

type DeliveryDetail = Awaited<ReturnType<ConsoleClient["webhooks"]["getDelivery"]["query"]>>;

/** Where the deliveries are, from an id's prefix (lsn_: a listen session; whk_: a subscription), or the only subscription. */
async function deliverySource(client: ConsoleClient, given: string | undefined): Promise<{ id: string; listen: boolean; found?: DeliveryDetail }> {
  if (given === undefined) return { id: await onlySubscription(client), listen: false };
  const kind = idKind(given);
  if (kind === "session") return { id: given, listen: true };
  if (kind === "webhook") return { id: given, listen: false };
  throw new UsageError(`"${given}" is not a subscription id (whk_…) or a listen session id (lsn_…)`, "Subscriptions: `ir21 webhooks list`; listen sessions: the lsn_… id `ir21 listen` prints.");
}

/** The account's only subscription; none or several is a usage error naming them. */
async function onlySubscription(client: ConsoleClient): Promise<string> {
  const { items } = await client.webhooks.list.query();
  if (items.length === 1) return items[0]!.id;
  if (items.length === 0) throw new UsageError("The account has no webhook subscriptions", "Create one with `ir21 webhooks create <url> --events …`.");
  throw new UsageError(`The account has ${items.length} webhook subscriptions: name one (whk_…) after the command`, `One of: ${items.map((s) => s.id).join(", ")}`);
}

/**
 * The subscription a delivery belongs to. The contract reaches a delivery only through its
 * subscription (`/console/webhooks/:id/deliveries/:deliveryId`), so each of the account's
 * subscriptions (at most 20) is asked, a few at a time; the answer found is kept for the caller.
 */
async function sourceOfDelivery(client: ConsoleClient, deliveryId: string, options: { forRetry?: boolean } = {}): Promise<{ id: string; listen: false; found?: DeliveryDetail }> {
  if (idKind(deliveryId) !== "delivery") throw new UsageError(`"${deliveryId}" is not a delivery id (dlv_…)`);
  const { items } = await client.webhooks.list.query();
  // A retry checks its ids itself (NOT_FOUND, nothing queued): with one subscription there is nothing to look for.
  if (items.length === 1 && options.forRetry) return { id: items[0]!.id, listen: false };
  for (let start = 0; start < items.length; start += FIND_CONCURRENCY) {
    const answers = await Promise.all(
      items.slice(start, start + FIND_CONCURRENCY).map(async (subscription) => {
        try {
          return { id: subscription.id, listen: false as const, found: await client.webhooks.getDelivery.query({ id: subscription.id, deliveryId }) };
        } catch (error) {
          if (apiFailureOf(error)?.code === "NOT_FOUND") return null;
          throw error;
        }
      }),
    );
    const hit = answers.find((answer) => answer !== null);
    if (hit) return hit;
  }
  if (items.length === 0) throw new UsageError("The account has no webhook subscriptions", options.forRetry ? undefined : LISTEN_HINT);
  throw new UsageError(`No delivery ${deliveryId} in the account's ${items.length === 1 ? "subscription" : `${items.length} subscriptions`}`, options.forRetry ? undefined : LISTEN_HINT);
}

const LISTEN_HINT = "A listen session's delivery needs its session: `ir21 deliveries show <delivery-id> <session-id>` (the lsn_… id `ir21 listen` prints).";

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
