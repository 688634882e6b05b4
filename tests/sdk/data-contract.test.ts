import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "@ir21/server";
import type { CapabilitiesQuery, ChangesQuery, DataClient, NetworksQuery, NumberRangesQuery, OperatorsQuery } from "@ir21/sdk";
import { EVENT_TYPES as SDK_EVENT_TYPES, EXPORT_RESOURCES } from "@ir21/sdk";
import { EVENT_TYPES as WEBHOOKS_EVENT_TYPES } from "@ir21/sdk/webhooks";
import { startTestServer, type TestServer } from "@ir21/server/testing";

/**
 * The data client against the server's own description of /v1 (GET /v1/openapi.json, generated from
 * the route definitions): every route has an SDK method, and every query interface has exactly the
 * route's parameters, with the same enumerations. Response shapes are checked at type level by
 * sdk/src/wire.check.ts; this covers what the contract types cannot (routes and parameters).
 */

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** A list of every key of T: the compiler refuses a missing or an extra name. */
const keysOf =
  <T>() =>
  <const K extends readonly (keyof T)[]>(keys: K & (Equal<K[number], keyof T> extends true ? unknown : "must list every key")) =>
    keys;

const QUERY_PARAMETERS: Record<string, readonly string[]> = {
  "GET /v1/operators": keysOf<OperatorsQuery>()(["cursor", "limit", "country", "q"]),
  "GET /v1/networks": keysOf<NetworksQuery>()(["cursor", "limit", "country", "operator", "mcc", "mnc", "tadig"]),
  "GET /v1/number-ranges": keysOf<NumberRangesQuery>()(["cursor", "limit", "country", "operator", "kind", "plan", "prefix"]),
  "GET /v1/capabilities": keysOf<CapabilitiesQuery>()(["cursor", "limit", "country", "operator", "network", "name"]),
  "GET /v1/changes": keysOf<ChangesQuery>()(["since", "cursor", "limit", "types", "country", "operator"]),
  // lookup(number, {country, fields}) and lookupImsi(imsi, {fields})
  "GET /v1/lookup": ["number", "country", "imsi", "fields"],
  // lookupBatch(numbers, {country, fields}): fields in the query, the rest in the body (below)
  "POST /v1/lookup/batch": ["fields"],
};

/** The SDK method serving each /v1 route (tests/sdk/data-client.test.ts calls every one against a live server). */
const SDK_METHOD_OF_ROUTE: Record<string, keyof DataClient | `${keyof DataClient}.${string}`> = {
  "GET /v1/meta": "meta",
  "GET /v1/countries": "countries.list",
  "GET /v1/countries/{iso2}": "countries.get",
  "GET /v1/operators": "operators.list",
  "GET /v1/operators/{id}": "operators.get",
  "GET /v1/networks": "networks.list",
  "GET /v1/networks/{id}": "networks.get",
  "GET /v1/number-ranges": "numberRanges.list",
  "GET /v1/number-ranges/{id}": "numberRanges.get",
  "GET /v1/capabilities": "capabilities.list",
  "GET /v1/lookup": "lookup",
  "POST /v1/lookup/batch": "lookupBatch",
  "GET /v1/changes": "changes.list",
  "GET /v1/exports/{file}": "exportCsv",
  "GET /v1/snapshot": "snapshot",
};

const NUMBER_KINDS = ["mobile", "fixed_line_or_mobile", "pager", "fixed", "toll_free", "premium_rate", "shared_cost", "voip", "personal_number", "uan", "voicemail", "other"] as const;
const NUMBER_PLANS = ["e164", "e212"] as const;
const exhaustive: [Equal<(typeof NUMBER_KINDS)[number], NonNullable<NumberRangesQuery["kind"]>>, Equal<(typeof NUMBER_PLANS)[number], NonNullable<NumberRangesQuery["plan"]>>] = [true, true];

interface Parameter {
  name: string;
  in: string;
  schema?: { enum?: string[]; items?: { enum?: string[] } };
}
let server: TestServer;
let paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>>;

beforeAll(async () => {
  server = await startTestServer();
  const response = await fetch(`${server.url}/v1/openapi.json`);
  expect(response.status).toBe(200);
  paths = ((await response.json()) as { paths: typeof paths }).paths;
});
afterAll(() => server.close());

const v1Routes = () =>
  Object.entries(paths)
    .filter(([path]) => path.startsWith("/v1/") && path !== "/v1/openapi.json")
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));

describe("the data client covers /v1 as the server describes it", () => {
  it("every /v1 route has an SDK method, and the SDK calls no route the server lacks", () => {
    expect(exhaustive).toEqual([true, true]);
    expect(v1Routes().sort()).toEqual(Object.keys(SDK_METHOD_OF_ROUTE).sort());
  });

  it.each(Object.entries(QUERY_PARAMETERS))("%s: the query interface has exactly the route's parameters", (route, sdkNames) => {
    const [method, path] = route.split(" ") as [string, string];
    const parameters = (paths[path]![method.toLowerCase()]!.parameters ?? []).filter((p) => p.in === "query");
    expect(parameters.map((p) => p.name).sort()).toEqual([...sdkNames].sort());
  });

  it("enumerations match: number kinds and plans, event types (and the SDK's list), export files", () => {
    const ranges = paths["/v1/number-ranges"]!.get!.parameters!;
    expect(ranges.find((p) => p.name === "kind")!.schema!.enum).toEqual([...NUMBER_KINDS]);
    expect(ranges.find((p) => p.name === "plan")!.schema!.enum).toEqual([...NUMBER_PLANS]);
    const types = paths["/v1/changes"]!.get!.parameters!.find((p) => p.name === "types")!;
    expect(types.schema!.items!.enum).toEqual([...EVENT_TYPES]);
    // The SDK's runtime list (both entries) is the server's, in the same order.
    expect([...SDK_EVENT_TYPES]).toEqual([...EVENT_TYPES]);
    expect(WEBHOOKS_EVENT_TYPES).toBe(SDK_EVENT_TYPES);
    const file = paths["/v1/exports/{file}"]!.get!.parameters!.find((p) => p.name === "file")!;
    expect(file.schema!.enum).toEqual(EXPORT_RESOURCES.map((r) => `${r}.csv`));
  });

  it("the batch body is {numbers, country}", () => {
    const body = paths["/v1/lookup/batch"]!.post!.requestBody!.content["application/json"]!.schema;
    expect(Object.keys(body.properties!).sort()).toEqual(["country", "numbers"]);
  });
});
