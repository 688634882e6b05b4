import { leaf, type Ir21Command } from "../command.ts";
import { UsageError } from "../errors.ts";
import { humanTime } from "../output.ts";
import type { Runtime } from "../runtime.ts";
import type { DataApi, EventType, ImsiLookupField, NumberLookupField } from "../sdk.ts";
import { EVENT_FILTER_FLAGS, eventTypesOf, integer, listOf, moreHint, readStdin } from "./shared.ts";

/**
 * The catalogue (/v1): lookups, countries, operators, number ranges, the change log and the dataset's
 * metadata. Credentials: an API key (--api-key, IR21_API_KEY or the profile), else the profile's login,
 * else anonymous, which sees the public projection and gets 401 (exit 3) on key-only routes.
 */

type Page<T> = { items: T[]; next_cursor: string | null };
type Listing<Q, T> = { list(query: Q): Promise<{ data: Page<T> }> };

const PAGE_FLAGS = {
  limit: { type: "string", valueHint: "1-1000", default: "100", description: "Items per page" },
  cursor: { type: "string", valueHint: "cursor", description: "Continue from a previous page's next_cursor" },
  all: { type: "boolean", description: "Follow next_cursor to the end (mind the quota: one unit per page)" },
} as const;

const CREDENTIALS_NOTE = "Uses --api-key / IR21_API_KEY / the profile's key, else your login, else anonymous access.";
const LIST_JSON_NOTE = "--json prints the array of items (every page's with --all); `ir21 api` gives the raw page with its next_cursor.";

export function dataCommands(rt: Runtime): Record<string, Ir21Command> {
  return {
    lookup: leaf({
      category: "Data",
      summary: "Look up a phone number (MSISDN) or an IMSI",
      details: [
        "A value starting with + (or given with --country) is a phone number; 14-15 digits without + are",
        "taken as an IMSI (force either with --number or --imsi). range_holder is the original holder of",
        "the number's range, not necessarily today's carrier (numbers are ported). --fields asks the",
        "service for those fields only (a smaller, cheaper answer; names in docs/api.md \"Lookup fields\").",
        CREDENTIALS_NOTE,
      ].join("\n"),
      examples: [
        "ir21 lookup +8613912345678",
        "ir21 lookup 13912345678 --country CN",
        "ir21 lookup 460001234567890",
        "ir21 --json lookup +8613912345678 | jq .range_holder",
        "ir21 lookup +8613912345678 +8613012345678 +447700900123",
        "cut -f1 numbers.tsv | ir21 lookup - --country CN",
        "ir21 lookup +8613912345678 --fields number,valid,number_type,range_holder,operator.id",
      ],
      variadic: "more-numbers",
      args: {
        "number-or-imsi": {
          type: "positional",
          required: true,
          description: "A phone number (E.164 such as +8613912345678, or national with --country) or an IMSI (14-15 digits); several numbers, or - to read them from stdin (one a line), are looked up in batches of 100",
        },
        country: { type: "string", valueHint: "CC", description: "The country of a national number (ISO alpha-2)" },
        imsi: { type: "boolean", description: "Treat the value as an IMSI" },
        number: { type: "boolean", description: "Treat the value as a phone number" },
        fields: {
          type: "string",
          valueHint: "list",
          description: "Only these fields of the answer, comma-separated, dotted for a sub-field (number,valid,number_type,range_holder,operator.id)",
        },
      },
      run: async (args) => {
        if (args.imsi && (args.number || args.country)) throw new UsageError("--imsi does not go with --number or --country");
        const value = args["number-or-imsi"];
        const extra = (args._ as string[]).slice(1);
        const fields = fieldsOf(args.fields);
        if (extra.length > 0 || value === "-") {
          if (args.imsi) throw new UsageError("--imsi looks up one IMSI; several values are phone numbers");
          const numbers = value === "-" ? await numbersFromStdin(rt, extra) : [value, ...extra];
          if (fields) await lookupManyFields(rt, numbers, args.country, fields);
          else await lookupMany(rt, numbers, args.country);
          return;
        }
        const compact = value.replace(/[\s-]/g, "");
        const asImsi = args.imsi || (!args.number && !args.country && /^\d{14,15}$/.test(compact));
        const client = rt.data();
        if (fields) {
          // The names are the service's to check (a 400 names the unknown ones): typed as any name.
          const { data } = asImsi ? await client.lookupImsi(compact, { fields: fields as ImsiLookupField[] }) : await client.lookup(value, { country: args.country, fields: fields as NumberLookupField[] });
          rt.out.result(data, () => rt.out.fields(Object.entries(data).map(([name, field]) => [name, shown(field)] as const)));
          return;
        }
        if (asImsi) {
          const { data } = await client.lookupImsi(compact);
          rt.out.result(data, () => {
            rt.out.fields([
              ["IMSI", data.imsi],
              ["MCC-MNC", data.mcc ? `${data.mcc}-${data.mnc ?? "?"}${data.ambiguous ? " (2- and 3-digit MNC both exist)" : ""}` : null],
              ["Country", data.country_iso2],
              ["Network", data.network ? `${data.network.id}${data.network.name ? ` ${data.network.name}` : ""}` : null],
              ["Operator", operatorLabel(data.operator)],
              ["IMSI range", data.range?.id],
            ]);
          });
          return;
        }
        const { data } = await client.lookup(value, { country: args.country });
        rt.out.result(data, () => {
          rt.out.fields([
            ["Number", data.number],
            ["Country", data.country_iso2],
            ["Valid", data.valid],
            ["Type", data.number_type],
            ["Range holder", [data.range_holder, data.range?.range_holder_local].filter(Boolean).join(" / ") || null],
            ["Operator", operatorLabel(data.operator)],
            ["Range", data.range ? `${data.range.id}${data.match ? ` (prefix ${data.match.prefix})` : ""}` : null],
            ["Network", data.network?.id],
            ["Networks", data.networks?.map((n: { id: string }) => n.id).join(", ")],
          ]);
          if (data.note) rt.out.info(data.note);
        });
      },
    }),
    countries: leaf({
      category: "Data",
      summary: "List countries (or show one) with calling codes and MCCs",
      details: "--json prints the array of countries, or the one country asked for.",
      examples: ["ir21 countries", "ir21 countries CN", "ir21 --json countries | jq -r '.[].iso2'"],
      args: { "country-code": { type: "positional", required: false, description: "One country's ISO alpha-2 code, e.g. CN" } },
      run: async (args) => {
        const client = rt.data();
        const iso2 = args["country-code"];
        if (iso2) {
          const { data } = await client.countries.get(iso2);
          rt.out.result(data, () => rt.out.fields(countryFields(data)));
          return;
        }
        const { data } = await client.countries.list();
        rt.out.result(data.items, () =>
          rt.out.table(
            data.items,
            [
              { header: "ISO2", value: (c) => c.iso2, id: true },
              { header: "ISO3", value: (c) => c.iso3 },
              { header: "NAME", value: (c) => c.name },
              { header: "中文", value: (c) => c.name_zh },
              { header: "CALLING", value: (c) => c.calling_codes.map((code: string) => `+${code}`).join(" ") },
              { header: "MCC", value: (c) => c.mccs.join(" ") },
            ],
            "No countries in the current dataset.",
          ),
          data,
        );
      },
    }),
    operators: leaf({
      category: "Data",
      summary: "List operators (or show one with its networks)",
      details: `${CREDENTIALS_NOTE}\n${LIST_JSON_NOTE}`,
      examples: ["ir21 operators --country CN", "ir21 operators --search mobile", "ir21 operators cn.china-mobile", "ir21 --json operators --country CN --all"],
      oldSpellings: { q: { flag: "search" } },
      args: {
        "operator-id": { type: "positional", required: false, description: "One operator's id, e.g. cn.china-mobile" },
        country: { type: "string", valueHint: "CC", description: "Only this country's operators" },
        search: { type: "string", valueHint: "text", description: "Search name, brand and local name (2 characters or more)" },
        ...PAGE_FLAGS,
      },
      run: async (args) => {
        const client = rt.data();
        const id = args["operator-id"];
        if (id) {
          const { data } = await client.operators.get(id);
          rt.out.result(data, () => {
            rt.out.fields([
              ["Operator", data.id],
              ["Name", [data.name, data.name_local].filter(Boolean).join(" / ")],
              ["Country", data.country_iso2],
              ["Brand", data.brand],
              ["Status", data.status],
              // Lineage (docs/catalog.md "Lineage"): the successor, or a split's buyers.
              [
                "Successor",
                data.lineage
                  ? `${data.successor_id ?? (data.lineage.successors ?? []).map((s) => s.operator_id).join(", ")} (${data.lineage.reason} ${data.lineage.date})`
                  : null,
              ],
              ["TADIG", data.tadig],
              ["Number ranges", data.number_range_counts ? `${data.number_range_counts.total} (${data.number_range_counts.mobile} mobile)` : null],
            ]);
            rt.out.line();
            rt.out.table(
              data.networks ?? [],
              [
                { header: "NETWORK", value: (n) => n.id, id: true },
                { header: "NAME", value: (n) => n.name },
                { header: "TYPE", value: (n) => n.network_type },
                { header: "TECHNOLOGIES", value: (n) => n.technologies?.join(" ") },
                { header: "STATUS", value: (n) => n.status },
              ],
              "No networks.",
            );
          });
          return;
        }
        const page = await pageOf(client.operators, { country: args.country, q: args.search }, args);
        rt.out.result(page.items, () => {
          rt.out.table(
            page.items,
            [
              { header: "ID", value: (o) => o.id, id: true },
              { header: "COUNTRY", value: (o) => o.country_iso2 },
              { header: "NAME", value: (o) => o.name },
              { header: "LOCAL NAME", value: (o) => o.name_local },
              { header: "BRAND", value: (o) => o.brand },
              { header: "STATUS", value: (o) => o.status },
            ],
            "No operators match.",
          );
        }, page);
        moreHint(rt, page.items.length, page.next_cursor, commandLine("operators", { country: args.country, search: args.search, limit: args.limit }));
      },
    }),
    ranges: leaf({
      category: "Data",
      summary: "List number ranges (MSISDN prefixes and IMSI ranges)",
      details: `Needs an API key or a login. ${CREDENTIALS_NOTE}\n${LIST_JSON_NOTE}`,
      examples: ["ir21 ranges --country CN --kind mobile", "ir21 ranges --prefix 86139", "ir21 ranges --operator cn.china-mobile --all --json > ranges.json"],
      args: {
        country: { type: "string", valueHint: "CC", description: "Only this country" },
        operator: { type: "string", valueHint: "id", description: "Only this operator's ranges" },
        kind: { type: "enum", options: ["mobile", "fixed_line_or_mobile", "pager", "fixed", "toll_free", "premium_rate", "shared_cost", "voip", "personal_number", "uan", "voicemail", "other"], description: "Only this kind of number (libphonenumber's number type)" },
        plan: { type: "enum", options: ["e164", "e212"], description: "e164 phone numbers or e212 IMSI ranges" },
        prefix: { type: "string", valueHint: "digits", description: "Ranges starting with these digits, country code included (e.g. 86139)" },
        ...PAGE_FLAGS,
      },
      run: async (args) => {
        const client = rt.data();
        const query = { country: args.country, operator: args.operator, kind: args.kind as "mobile" | undefined, plan: args.plan as "e164" | undefined, prefix: args.prefix };
        const page = await pageOf(client.numberRanges, query, args);
        rt.out.result(page.items, () => {
          rt.out.table(
            page.items,
            [
              { header: "ID", value: (r) => r.id, id: true },
              { header: "PLAN", value: (r) => r.plan },
              { header: "KIND", value: (r) => r.kind },
              { header: "COUNTRY", value: (r) => r.country_iso2 },
              { header: "RANGE", value: (r) => r.prefix ?? `${r.start}-${r.end}` },
              { header: "HOLDER", value: (r) => r.range_holder_local ?? r.range_holder },
              { header: "OPERATOR", value: (r) => r.operator_id, id: true },
            ],
            "No number ranges match.",
          );
        }, page);
        moreHint(rt, page.items.length, page.next_cursor, commandLine("ranges", { country: args.country, operator: args.operator, kind: args.kind, plan: args.plan, prefix: args.prefix, limit: args.limit }));
      },
    }),
    changes: leaf({
      category: "Data",
      summary: "List catalogue changes after a dataset version (catch-up by version)",
      details: [
        "Events after --since (exclusive; none for the whole log), oldest first. Follow the pages, then use",
        "current_version as the next --since. ir21.catalog.updated (reload the snapshot) always comes through",
        `the filters. Needs an API key or a login. ${CREDENTIALS_NOTE}`,
        "--json prints {items, next_cursor, current_version}: unlike other lists, the version to catch up",
        "from next time is part of the answer, so the page is printed whole.",
      ].join("\n"),
      examples: ["ir21 changes --since 2026-11-23.000001", "ir21 changes --since none --all --json > changes.json", "ir21 changes --since 2026-11-23.000001 --events operator.updated --countries CN"],
      repeatable: ["events", "countries", "operators"],
      oldSpellings: { type: { flag: "events" }, country: { flag: "countries" }, operator: { flag: "operators" } },
      args: {
        since: { type: "string", valueHint: "version", required: true, description: "The dataset version you hold, or none" },
        events: { ...EVENT_FILTER_FLAGS.events, description: `${EVENT_FILTER_FLAGS.events.description} (default every type; ir21.catalog.updated always comes)` },
        countries: EVENT_FILTER_FLAGS.countries,
        operators: EVENT_FILTER_FLAGS.operators,
        ...PAGE_FLAGS,
      },
      run: async (args) => {
        const client = rt.data();
        const filter = {
          since: args.since,
          // Short or long forms; a typo is a usage error before any request.
          types: rt.repeated.events ? selectedTypes(rt.repeated.events) : undefined,
          country: rt.repeated.countries ? listOf(rt.repeated.countries) : undefined,
          operator: rt.repeated.operators ? listOf(rt.repeated.operators) : undefined,
        };
        const limit = integer(args.limit, "--limit", { min: 1, max: 1000 });
        let page: Awaited<ReturnType<DataApi["changes"]["list"]>>["data"];
        if (args.all) {
          if (args.cursor) throw new UsageError("--all starts from the beginning: it does not take --cursor");
          page = (await client.changes.list({ ...filter, limit })).data;
          const items = [...page.items];
          while (page.next_cursor) {
            page = (await client.changes.list({ ...filter, limit, cursor: page.next_cursor })).data;
            items.push(...page.items);
          }
          page = { ...page, items, next_cursor: null };
        } else {
          page = (await client.changes.list({ ...filter, limit, cursor: args.cursor })).data;
        }
        const result = page;
        rt.out.result(result, () => {
          rt.out.table(
            result.items,
            [
              { header: "EVENT", value: (e) => e.id, id: true },
              { header: "TYPE", value: (e) => e.type.replace(/^ir21\./, "") },
              { header: "VERSION", value: (e) => e.dataset_version },
              { header: "COUNTRY", value: (e) => e.country_iso2 },
              { header: "OPERATOR", value: (e) => e.operator_id, id: true },
              { header: "OCCURRED", value: (e) => humanTime(e.occurred_at) },
            ],
            "No changes.",
          );
          if (result.next_cursor) rt.out.info(`More: ${rt.commandPrefix()} changes --since ${args.since} --cursor ${result.next_cursor} (or --all)`);
          else rt.out.info(`Up to date with ${result.current_version}: next time use --since ${result.current_version}`);
        });
      },
    }),
    networks: leaf({
      category: "Data",
      summary: "List mobile networks (PLMNs: MCC-MNC, TADIG), or show one",
      details: `${CREDENTIALS_NOTE}\n${LIST_JSON_NOTE}`,
      examples: ["ir21 networks --country CN", "ir21 networks --mcc 460 --mnc 00", "ir21 networks 460-00", "ir21 networks --tadig CHNCT", "ir21 --json networks --operator cn.china-mobile --all"],
      args: {
        "network-id": { type: "positional", required: false, description: "One network's id (MCC-MNC), e.g. 460-00" },
        country: { type: "string", valueHint: "CC", description: "Only this country's networks" },
        operator: { type: "string", valueHint: "id", description: "Only this operator's networks" },
        mcc: { type: "string", valueHint: "digits", description: "Mobile country code (3 digits)" },
        mnc: { type: "string", valueHint: "digits", description: "Mobile network code (2 or 3 digits)" },
        tadig: { type: "string", valueHint: "code", description: "TADIG code (5 characters)" },
        ...PAGE_FLAGS,
      },
      run: async (args) => {
        if (args.mcc !== undefined && !/^\d{3}$/.test(args.mcc)) throw new UsageError(`--mcc must be 3 digits, got "${args.mcc}"`);
        if (args.mnc !== undefined && !/^\d{2,3}$/.test(args.mnc)) throw new UsageError(`--mnc must be 2 or 3 digits, got "${args.mnc}"`);
        const client = rt.data();
        const id = args["network-id"];
        if (id) {
          const { data } = await client.networks.get(id);
          rt.out.result(data, () =>
            rt.out.fields([
              ["Network", data.id],
              ["MCC-MNC", `${data.mcc}-${data.mnc}`],
              ["Name", data.name],
              ["Country", data.country_iso2],
              ["Operator", data.operator_id],
              ["TADIG", data.tadig],
              ["Type", data.network_type],
              ["Status", data.status],
              ["Technologies", data.technologies?.join(" ")],
              ["Bands", data.bands?.join(" ")],
            ]),
          );
          return;
        }
        const page = await pageOf(client.networks, { country: args.country, operator: args.operator, mcc: args.mcc, mnc: args.mnc, tadig: args.tadig }, args);
        rt.out.result(page.items, () => {
          rt.out.table(
            page.items,
            [
              { header: "ID", value: (n) => n.id, id: true },
              { header: "COUNTRY", value: (n) => n.country_iso2 },
              { header: "NAME", value: (n) => n.name },
              { header: "OPERATOR", value: (n) => n.operator_id, id: true },
              { header: "TADIG", value: (n) => n.tadig },
              { header: "TECHNOLOGIES", value: (n) => n.technologies?.join(" ") },
              { header: "STATUS", value: (n) => n.status },
            ],
            "No networks match.",
          );
        }, page);
        moreHint(rt, page.items.length, page.next_cursor, commandLine("networks", { country: args.country, operator: args.operator, mcc: args.mcc, mnc: args.mnc, tadig: args.tadig, limit: args.limit }));
      },
    }),
    capabilities: leaf({
      category: "Data",
      summary: "List network and operator capabilities (VoLTE, roaming features, …)",
      details: `Needs an API key or a login. ${CREDENTIALS_NOTE}\n${LIST_JSON_NOTE}`,
      examples: ["ir21 capabilities --country CN", "ir21 capabilities --network 460-00", "ir21 capabilities --name volte.s8hr", "ir21 --json capabilities --operator cn.china-mobile --all"],
      args: {
        country: { type: "string", valueHint: "CC", description: "Only this country" },
        operator: { type: "string", valueHint: "id", description: "Only this operator's (and its networks') capabilities" },
        network: { type: "string", valueHint: "id", description: "Only this network's capabilities" },
        name: { type: "string", valueHint: "name", description: "Only this capability, e.g. volte.s8hr" },
        ...PAGE_FLAGS,
      },
      run: async (args) => {
        const page = await pageOf(rt.data().capabilities, { country: args.country, operator: args.operator, network: args.network, name: args.name }, args);
        rt.out.result(page.items, () => {
          rt.out.table(
            page.items,
            [
              { header: "NAME", value: (c) => c.name },
              { header: "VALUE", value: (c) => (typeof c.value === "string" ? c.value : JSON.stringify(c.value)) },
              { header: "SUBJECT", value: (c) => `${c.subject_type} ${c.subject_id}`, id: true },
              { header: "COUNTRY", value: (c) => c.country_iso2 },
              { header: "EFFECTIVE", value: (c) => (c.effective_at ? humanTime(c.effective_at) : null) },
            ],
            "No capabilities match.",
          );
        }, page);
        moreHint(rt, page.items.length, page.next_cursor, commandLine("capabilities", { country: args.country, operator: args.operator, network: args.network, name: args.name, limit: args.limit }));
      },
    }),
    meta: leaf({
      category: "Data",
      summary: "Show the current dataset version, its counts, sources and licences",
      examples: ["ir21 meta", "ir21 --json meta | jq -r .dataset_version"],
      args: {},
      run: async () => {
        const { data } = await rt.data().meta();
        rt.out.result(data, () => {
          rt.out.fields([
            ["Version", data.dataset_version],
            ["Previous", data.previous_version],
            ["Source mode", data.source_mode],
            ["Published", humanTime(data.source_published_at)],
            ["Imported", humanTime(data.ingested_at)],
            ["Countries", data.counts?.countries],
            ["Operators", data.counts?.operators],
            ["Networks", data.counts?.networks],
            ["Number ranges", data.counts?.number_ranges],
            ["Capabilities", data.counts?.capabilities],
          ]);
          rt.out.line();
          rt.out.table(
            data.sources ?? [],
            [
              { header: "SOURCE", value: (s) => s.id },
              { header: "VERSION", value: (s) => s.version },
              { header: "LICENCE", value: (s) => s.license },
            ],
            "No sources.",
          );
          if (data.attribution) rt.out.info(data.attribution);
        });
      },
    }),
  };
}

/** `--events` of `changes`: the types to ask for, or none (every type) for `all`. */
function selectedTypes(values: string[]): EventType[] | undefined {
  const { all, types } = eventTypesOf(values);
  return all ? undefined : types;
}

/** The batch endpoint's limit (contract: POST /v1/lookup/batch takes 1 to 100 numbers). */
const BATCH_SIZE = 100;

/** Numbers from stdin, one a line (blank lines and `#` comments skipped), after those on the line. */
async function numbersFromStdin(rt: Runtime, extra: string[]): Promise<string[]> {
  if (rt.io.stdin.isTTY) throw new UsageError("lookup - reads numbers from stdin: pipe them in, one a line");
  const text = (await readStdin(rt.io.stdin)).toString("utf8");
  const numbers = [...extra, ...text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"))];
  if (numbers.length === 0) throw new UsageError("No numbers on stdin");
  return numbers;
}

/**
 * Several numbers through POST /v1/lookup/batch, 100 a request, answers in the order given. A number
 * that does not parse is a row with its error (exit 0: the others answered), as the endpoint reports it.
 */
async function lookupMany(rt: Runtime, numbers: string[], country: string | undefined): Promise<void> {
  const client = rt.data();
  const items: Awaited<ReturnType<DataApi["lookupBatch"]>>["data"]["items"] = [];
  for (let i = 0; i < numbers.length; i += BATCH_SIZE) {
    const { data } = await client.lookupBatch(numbers.slice(i, i + BATCH_SIZE), { country });
    items.push(...data.items);
  }
  rt.out.result(items, () =>
    rt.out.table(
      items,
      [
        { header: "NUMBER", value: (item) => item.number, id: true },
        { header: "COUNTRY", value: (item) => ("error" in item ? null : item.country_iso2) },
        { header: "VALID", value: (item) => ("error" in item ? null : item.valid) },
        { header: "RANGE HOLDER", value: (item) => ("error" in item ? null : item.range_holder) },
        { header: "OPERATOR", value: (item) => ("error" in item ? null : item.operator?.id), id: true },
        { header: "ERROR", value: (item) => ("error" in item ? item.error.code : null) },
      ],
      "No numbers.",
    ),
    { items },
  );
}

/** `--fields a,b.c`: the names, or undefined without the flag; an empty list is a usage error. */
function fieldsOf(flag: string | undefined): string[] | undefined {
  if (flag === undefined) return undefined;
  const names = flag.split(",").map((name) => name.trim()).filter((name) => name !== "");
  if (names.length === 0) throw new UsageError("--fields takes field names, comma-separated: number,valid,range_holder");
  return names;
}

/** A field of a narrowed answer on a line: text as it is, anything else (an object, a list) as compact JSON. */
const shown = (value: unknown): string | number | boolean | null => (value === null || typeof value !== "object" ? (value as string | number | boolean | null) : JSON.stringify(value));

/** {@link lookupMany} with `--fields`: a column per field the answers have, and the error. */
async function lookupManyFields(rt: Runtime, numbers: string[], country: string | undefined, fields: string[]): Promise<void> {
  const client = rt.data();
  const items: Array<Record<string, unknown>> = [];
  for (let i = 0; i < numbers.length; i += BATCH_SIZE) {
    const { data } = await client.lookupBatch(numbers.slice(i, i + BATCH_SIZE), { country, fields: fields as NumberLookupField[] });
    items.push(...(data.items as Array<Record<string, unknown>>));
  }
  const names = [...new Set(items.filter((item) => !("error" in item)).flatMap((item) => Object.keys(item)))];
  rt.out.result(items, () =>
    rt.out.table(
      items,
      [
        ...names.map((name) => ({ header: name.toUpperCase(), value: (item: Record<string, unknown>) => ("error" in item ? (name === "number" ? (item.number as string) : null) : shown(item[name])) })),
        { header: "ERROR", value: (item: Record<string, unknown>) => ("error" in item ? (item.error as { code: string }).code : null) },
      ],
      "No numbers.",
    ),
    { items },
  );
}

/** One page, or with `--all` every page merged into one (`next_cursor: null`). */
async function pageOf<Q extends object, T>(listing: Listing<Q & { limit?: number; cursor?: string }, T>, query: Q, args: { limit: string; cursor?: string; all?: boolean }): Promise<Page<T>> {
  const limit = integer(args.limit, "--limit", { min: 1, max: 1000 });
  if (!args.all) return (await listing.list({ ...query, limit, cursor: args.cursor })).data;
  if (args.cursor) throw new UsageError("--all starts from the beginning: it does not take --cursor");
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const { data } = await listing.list({ ...query, limit, cursor });
    items.push(...data.items);
    cursor = data.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return { items, next_cursor: null };
}

/** `operators --country CN --limit 5`: a list command with the filters it was given, for the next-page hint. */
function commandLine(command: string, flags: Record<string, string | undefined>): string {
  const given = Object.entries(flags).filter(([name, value]) => value !== undefined && !(name === "limit" && value === PAGE_FLAGS.limit.default));
  return [command, ...given.map(([name, value]) => `--${name} ${/^[\w.,:+-]+$/.test(value!) ? value : JSON.stringify(value)}`)].join(" ");
}

function operatorLabel(operator: { id: string; name: string; name_local?: string | null } | null | undefined): string | null {
  if (!operator) return null;
  return `${operator.name}${operator.name_local ? ` / ${operator.name_local}` : ""} (${operator.id})`;
}

function countryFields(c: { iso2: string; iso3: string | null; name: string; name_zh: string | null; calling_codes: string[]; mccs: string[] }) {
  return [
    ["Country", c.iso2],
    ["ISO3", c.iso3],
    ["Name", [c.name, c.name_zh].filter(Boolean).join(" / ")],
    ["Calling codes", c.calling_codes.map((code) => `+${code}`).join(" ")],
    ["MCCs", c.mccs.join(" ")],
  ] as const;
}

