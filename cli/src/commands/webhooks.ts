import { group, leaf, type Ir21Command } from "../command.ts";
import { UsageError } from "../errors.ts";
import { humanTime } from "../output.ts";
import type { Runtime } from "../runtime.ts";
import { EVENT_TYPES, type ConsoleClient, type EventType } from "../sdk.ts";
import { confirmOrYes, EVENT_FILTER_FLAGS, eventTypesOf, integer, listOf, OLD_EVENT_FILTER_SPELLINGS, YES_FLAG } from "./shared.ts";

type Subscription = Awaited<ReturnType<ConsoleClient["webhooks"]["list"]["query"]>>["items"][number];

/** The subscription a command acts on: the first argument of every command but create and list. */
const WEBHOOK_ID = { "webhook-id": { type: "positional", required: true, description: "The subscription's id (whk_…), from `ir21 webhooks list`" } } as const;

export function webhooksCommand(rt: Runtime): Ir21Command {
  return group({
    category: "Webhooks",
    summary: "Manage webhook subscriptions (signed change notifications)",
    details: [
      "A subscription receives a signed POST for each catalogue change it selects. The signing secret",
      "(whsec_…) is printed once, at creation and at rotation. Delivery history: `ir21 deliveries`.",
      `Event types: ${EVENT_TYPES.join(", ")}.`,
    ].join("\n"),
    examples: [
      "ir21 webhooks create https://hooks.example.com/ir21 --events all",
      "ir21 webhooks list",
      "ir21 webhooks rotate-secret whk_01jd… --grace 3600",
    ],
    commands: {
      list: leaf({
        summary: "List subscriptions",
        details: "--json prints the array of subscriptions.",
        examples: ["ir21 webhooks list", "ir21 --json webhooks list | jq -r '.[].id'"],
        args: {},
        run: async () => {
          const data = await rt.console().webhooks.list.query();
          rt.out.result(
            data.items,
            () =>
              rt.out.table(
                data.items,
                [
                  { header: "ID", value: (s) => s.id, id: true },
                  { header: "URL", value: (s) => s.url },
                  { header: "EVENTS", value: (s) => eventsSummary(s.events) },
                  { header: "FILTERS", value: (s) => filtersSummary(s) },
                  { header: "STATUS", value: (s) => (s.enabled ? "enabled" : "disabled"), style: (text, s) => (s.enabled ? rt.out.c.green(text) : rt.out.c.yellow(text)) },
                  { header: "ROTATION", value: (s) => (s.previous_secret_expires_at ? `old secret until ${humanTime(s.previous_secret_expires_at)}` : "") },
                ],
                "No webhook subscriptions. Create one with `ir21 webhooks create <url> --events …`.",
              ),
            data,
          );
        },
      }),
      create: leaf({
        summary: "Subscribe a URL to events; prints the signing secret (the only time it is shown)",
        details: [
          "The URL must be public HTTPS. Without --countries/--operators every country and operator is included.",
          "The secret alone is printed on stdout, so `SECRET=$(ir21 webhooks create …)` captures it.",
          "--json prints the new subscription with its signing secret added as `secret`.",
        ].join("\n"),
        examples: [
          "ir21 webhooks create https://hooks.example.com/ir21 --events all",
          "ir21 webhooks create https://hooks.example.com/cn --events number_range.added,number_range.removed --countries CN",
          "ir21 --json webhooks create https://hooks.example.com/ir21 --events all | jq -r .id",
        ],
        repeatable: ["events", "countries", "operators"],
        oldSpellings: { url: { positional: "url" }, ...OLD_EVENT_FILTER_SPELLINGS },
        args: {
          url: { type: "positional", required: true, description: "Where deliveries are POSTed (public HTTPS), e.g. https://hooks.example.com/ir21" },
          ...EVENT_FILTER_FLAGS,
        },
        run: async (args) => {
          const events = eventTypesOf(rt.repeated.events).types;
          if (events.length === 0) throw new UsageError("Name the events to subscribe to: --events all, or types such as --events operator.updated,network.added");
          const countries = listOf(rt.repeated.countries);
          const operators = listOf(rt.repeated.operators);
          const data = await rt.console().webhooks.create.mutate({
            url: args.url,
            events,
            ...(countries.length ? { countries } : {}),
            ...(operators.length ? { operators } : {}),
          });
          rt.out.success(`Created webhook ${data.item.id} for ${data.item.url}`);
          rt.out.result({ ...data.item, secret: data.secret }, () => rt.out.line(data.secret), data);
          rt.out.info("Copy the signing secret now: it is not shown again (rotate it with `ir21 webhooks rotate-secret`).");
        },
      }),
      update: leaf({
        summary: "Change a subscription's URL, events or filters",
        details: [
          "Only the flags given change. --events/--countries/--operators replace the whole list; --all-countries",
          "and --all-operators remove the filter. --json prints the subscription as it is now.",
        ].join("\n"),
        examples: ["ir21 webhooks update whk_01jd… --events all", "ir21 webhooks update whk_01jd… --countries CN,HK", "ir21 webhooks update whk_01jd… --all-countries"],
        repeatable: ["events", "countries", "operators"],
        oldSpellings: OLD_EVENT_FILTER_SPELLINGS,
        args: {
          ...WEBHOOK_ID,
          url: { type: "string", valueHint: "https-url", description: "A new target URL (public HTTPS)" },
          ...EVENT_FILTER_FLAGS,
          "all-countries": { type: "boolean", description: "Remove the country filter" },
          "all-operators": { type: "boolean", description: "Remove the operator filter" },
        },
        run: async (args) => {
          const patch: { url?: string; events?: EventType[]; countries?: string[]; operators?: string[] } = {};
          if (args.url !== undefined) patch.url = args.url;
          if (rt.repeated.events) patch.events = eventTypesOf(rt.repeated.events).types;
          if (rt.repeated.countries && args["all-countries"]) throw new UsageError("Give --countries or --all-countries, not both");
          if (rt.repeated.operators && args["all-operators"]) throw new UsageError("Give --operators or --all-operators, not both");
          if (rt.repeated.countries) patch.countries = listOf(rt.repeated.countries);
          if (args["all-countries"]) patch.countries = [];
          if (rt.repeated.operators) patch.operators = listOf(rt.repeated.operators);
          if (args["all-operators"]) patch.operators = [];
          if (Object.keys(patch).length === 0) throw new UsageError("Nothing to change: give --url, --events, --countries, --operators, --all-countries or --all-operators");
          const data = await rt.console().webhooks.update.mutate({ id: args["webhook-id"], ...patch });
          rt.out.success(`Updated webhook ${data.item.id}`);
          rt.out.result(data.item, () => describe(rt, data.item), data);
        },
      }),
      delete: leaf({
        summary: "Delete a subscription (pending deliveries are cancelled)",
        examples: ["ir21 webhooks delete whk_01jd…", "ir21 webhooks delete whk_01jd… --yes"],
        args: { ...WEBHOOK_ID, ...YES_FLAG },
        run: async (args) => {
          const id = args["webhook-id"];
          await confirmOrYes(rt, args.yes, `Delete webhook ${id}? Its pending deliveries are cancelled.`);
          const data = await rt.console().webhooks.delete.mutate({ id });
          rt.out.success(`Deleted webhook ${id}`);
          rt.out.result({ id, ...data }, () => {}, data);
        },
      }),
      enable: leaf({
        summary: "Resume deliveries to a subscription",
        examples: ["ir21 webhooks enable whk_01jd…"],
        args: { ...WEBHOOK_ID },
        run: async (args) => setEnabled(rt, args["webhook-id"], true),
      }),
      disable: leaf({
        summary: "Pause a subscription: no new deliveries, pending ones stop",
        examples: ["ir21 webhooks disable whk_01jd…"],
        args: { ...WEBHOOK_ID },
        run: async (args) => setEnabled(rt, args["webhook-id"], false),
      }),
      test: leaf({
        summary: "Queue a test event (test: true) to the subscription's URL",
        details:
          "Sends the subscription's first event type with a summary. For a chosen type with realistic data: `ir21 trigger <event-type> <webhook-id>`.\n" +
          "Queued means queued: follow the delivery with `ir21 deliveries show <delivery-id> <webhook-id>`.",
        examples: ["ir21 webhooks test whk_01jd…", "ir21 deliveries show \"$(ir21 --json webhooks test whk_01jd… | jq -r .delivery_id)\""],
        args: { ...WEBHOOK_ID },
        run: async (args) => {
          const id = args["webhook-id"];
          const data = await rt.console().webhooks.sendTest.mutate({ id });
          rt.out.success(`Queued test delivery ${data.delivery_id}`);
          rt.out.result({ ...data, webhook_id: id }, () => rt.out.line(`Follow it with: ${rt.commandPrefix()} deliveries show ${data.delivery_id} ${id}`), data);
        },
      }),
      "rotate-secret": leaf({
        summary: "Issue a new signing secret; the old one keeps signing during a grace period",
        details: [
          "Deliveries carry X-IR21-Signature (new secret) and, during the grace period, X-IR21-Signature-Previous",
          "(old secret). Update the receiver, then end the grace early with `ir21 webhooks revoke-previous`.",
          "The new secret alone is printed on stdout; --json prints the subscription with `secret` added.",
        ].join("\n"),
        examples: ["ir21 webhooks rotate-secret whk_01jd…", "ir21 webhooks rotate-secret whk_01jd… --grace 0 --yes"],
        args: {
          ...WEBHOOK_ID,
          grace: { type: "string", valueHint: "seconds", default: "3600", description: "How long the old secret keeps signing, 0 to 86400" },
          ...YES_FLAG,
        },
        run: async (args) => {
          const id = args["webhook-id"];
          const grace = integer(args.grace, "--grace", { min: 0, max: 86_400 });
          if (grace === 0) await confirmOrYes(rt, args.yes, "Rotate with --grace 0? The old secret stops signing at once; receivers not yet updated will reject deliveries.");
          const data = await rt.console().webhooks.rotateSecret.mutate({ id, grace_seconds: grace });
          rt.out.success(
            `Rotated the signing secret of ${id}${data.previous_secret_expires_at ? `; the old one signs until ${humanTime(data.previous_secret_expires_at)}` : "; the old one is no longer valid"}`,
          );
          rt.out.result({ ...data.item, secret: data.secret }, () => rt.out.line(data.secret), data);
          rt.out.info("Copy the new secret now: it is not shown again.");
        },
      }),
      "revoke-previous": leaf({
        summary: "End a rotation's grace period now: the old secret stops signing",
        examples: ["ir21 webhooks revoke-previous whk_01jd… --yes"],
        args: { ...WEBHOOK_ID, ...YES_FLAG },
        run: async (args) => {
          const id = args["webhook-id"];
          await confirmOrYes(rt, args.yes, `Revoke the previous signing secret of ${id}? Receivers still using it will reject deliveries.`);
          const data = await rt.console().webhooks.revokePreviousSecret.mutate({ id });
          rt.out.success(`Revoked the previous signing secret of ${id}`);
          rt.out.result({ id, ...data }, () => {}, data);
        },
      }),
    },
  });
}

async function setEnabled(rt: Runtime, id: string, enabled: boolean): Promise<void> {
  const data = await rt.console().webhooks.update.mutate({ id, enabled });
  rt.out.success(`${enabled ? "Enabled" : "Disabled"} webhook ${id}`);
  rt.out.result(data.item, () => describe(rt, data.item), data);
}

function describe(rt: Runtime, s: Subscription): void {
  rt.out.fields([
    ["ID", s.id],
    ["URL", s.url],
    ["Events", s.events.join(", ")],
    ["Countries", s.countries.join(", ") || "all"],
    ["Operators", s.operators.join(", ") || "all"],
    ["Status", s.enabled ? "enabled" : "disabled"],
    ["Old secret", s.previous_secret_expires_at ? `signs until ${humanTime(s.previous_secret_expires_at)}` : "none"],
  ]);
}

function eventsSummary(events: readonly string[]): string {
  return events.length === EVENT_TYPES.length ? "all" : events.map((e) => e.replace(/^ir21\./, "")).join(",");
}

function filtersSummary(s: Subscription): string {
  const parts = [s.countries.length ? `countries ${s.countries.join(",")}` : "", s.operators.length ? `operators ${s.operators.join(",")}` : ""].filter(Boolean);
  return parts.join("; ") || "none";
}
