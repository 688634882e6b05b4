import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { auditCatalog } from "./audit.ts";
import { importDataset } from "./import.ts";
import { demoDataset, type MaterialisedDataset } from "./importers/demo.ts";

/**
 * Operators serving several territories (docs/catalog.md "Territories"), on a hand-made dataset: EE
 * (234-30) with a range of Jersey's numbering (+44 7797, which libphonenumber gives JE). The write
 * path (import, stored territories, ?country= filter) runs on both databases.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ dataset: "demo" });
}, 60_000);
afterAll(() => server.close());

function withJersey(territories: string[], jerseyMccs: string[]): MaterialisedDataset {
  const demo = demoDataset();
  const ee = demo.operators.find((o) => o.id === "gb.ee")!;
  const template = demo.numberRanges.find((r) => r.operator_id === "gb.ee")!;
  return {
    ...demo,
    countries: [...demo.countries, { iso2: "JE", iso3: "JEY", name: "Jersey", name_zh: "泽西", calling_codes: ["44"], mccs: jerseyMccs }],
    operators: demo.operators.map((o) => (o === ee ? { ...o, territories } : o)),
    numberRanges: [...demo.numberRanges, { ...template, id: "e164-447797", prefix: "447797", country_iso2: "JE" }],
  };
}

describe("operator territories", () => {
  it("the audit counts a range outside its operator's country as a mismatch unless the territory is documented", async () => {
    // Not claimed: a mismatch.
    await importDataset(server.deps, withJersey(["GB"], ["234"]));
    let audit = await auditCatalog(server.deps.db, server.clock.now().getTime());
    expect(audit.territory_mismatches.count).toBe(1);
    expect(audit.territory_mismatches.examples).toEqual([{ range: "e164-447797", country_iso2: "JE", operator: "gb.ee", operator_country: "GB" }]);
    // Claimed, but Jersey's record lists none of EE's MCCs: still a mismatch (the claim is not documented).
    await importDataset(server.deps, withJersey(["GB", "JE"], []));
    audit = await auditCatalog(server.deps.db, server.clock.now().getTime());
    expect(audit.territory_mismatches.count).toBe(1);
    // Claimed and documented (Jersey uses MCC 234, EE's network is 234-30): a range of another territory.
    await importDataset(server.deps, withJersey(["GB", "JE"], ["234"]));
    audit = await auditCatalog(server.deps.db, server.clock.now().getTime());
    expect(audit.territory_mismatches.count).toBe(0);
    expect(audit.ranges_in_other_territories).toBe(1);
  });

  it("?country= finds an operator under its country and each of its territories, stored and served on the public projection too", async () => {
    await importDataset(server.deps, withJersey(["GB", "JE"], ["234"]));
    const headers = (await createApiKey(server, await signIn(server))).headers;
    const ids = async (path: string, init?: { headers: Record<string, string> }) => (await server.json(path, init)).body.data.items.map((o: { id: string }) => o.id);
    expect(await ids("/v1/operators?country=JE", { headers })).toEqual(["gb.ee"]);
    expect(await ids("/v1/operators?country=GB", { headers })).toEqual(["gb.ee"]);
    expect(await ids("/v1/operators?country=CN", { headers })).toEqual(["cn.china-mobile", "cn.china-telecom", "cn.china-unicom"]);
    // A code that is a substring of nothing stored finds nothing ("E" alone never matches: the quoted code is searched).
    expect(await ids("/v1/operators?country=EE", { headers })).toEqual([]);
    const full = await server.json("/v1/operators/gb.ee", { headers });
    expect(full.body.data).toMatchObject({ country_iso2: "GB", territories: ["GB", "JE"] });
    const anonymous = await server.json("/v1/operators?country=JE");
    expect(anonymous.status).toBe(200);
    // The public projection (docs/api.md) is unchanged: the anonymous caller finds the operator, not its territory list.
    expect(anonymous.body.data.items).toEqual([{ id: "gb.ee", country_iso2: "GB", name: "EE" }]);
    // The country resource lists the operators serving it, for every caller.
    const jersey = await server.json("/v1/countries/je");
    expect(jersey.body.data).toMatchObject({ iso2: "JE", mccs: ["234"], operators: [{ id: "gb.ee", country_iso2: "GB", name: "EE" }] });
    expect((await server.json("/v1/countries/CN")).body.data.operators.map((o: { id: string }) => o.id)).toEqual(["cn.china-mobile", "cn.china-telecom", "cn.china-unicom"]);
    const bad = await server.json("/v1/operators?country=J%22");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "INVALID_REQUEST" });
  });

  it("a territory given up by a later import stops matching, while a listing pinned before it still sees it", async () => {
    await importDataset(server.deps, withJersey(["GB", "JE"], ["234"]));
    const headers = (await createApiKey(server, await signIn(server))).headers;
    // A listing started now is pinned at this version by its cursor (two of CN's three operators per page).
    const pinned = await server.json("/v1/operators?country=CN&limit=2", { headers });
    expect(pinned.body.data.next_cursor).toEqual(expect.any(String));
    await importDataset(server.deps, withJersey(["GB"], ["234"]));
    expect((await server.json("/v1/operators?country=JE", { headers })).body.data.items).toEqual([]);
    expect((await server.json("/v1/countries/JE")).body.data.operators).toEqual([]);
    expect((await server.json("/v1/operators?country=GB", { headers })).body.data.items.map((o: { id: string }) => o.id)).toEqual(["gb.ee"]);
    const rest = await server.json(`/v1/operators?country=CN&limit=2&cursor=${pinned.body.data.next_cursor}`, { headers });
    expect(rest.body.data.items.map((o: { id: string }) => o.id)).toEqual(["cn.china-unicom"]);
  });

  it("imports racing each other keep the index of operators by country equal to what every stored incarnation serves", async () => {
    const results = await Promise.allSettled([withJersey(["GB", "JE"], ["234"]), withJersey(["GB"], ["234"]), withJersey(["JE", "GB"], ["234"])].map((d) => importDataset(server.deps, d)));
    expect(results.filter((r) => r.status === "fulfilled").length).toBeGreaterThan(0);
    const db = server.deps.db;
    // Expected from the stored rows, by hand: each incarnation serves its own country and its territories.
    const expected = (await db.selectFrom("catalog_operators").select(["id", "country_iso2", "territories", "valid_from"]).execute())
      .flatMap((o) => [...new Set([o.country_iso2, ...(JSON.parse(o.territories) as string[])])].map((c) => `${c} ${o.id} ${Number(o.valid_from)}`))
      .sort();
    const indexed = (await db.selectFrom("catalog_operator_territories").selectAll().execute()).map((t) => `${t.country_iso2} ${t.operator_id} ${Number(t.valid_from)}`).sort();
    expect(indexed).toEqual(expected);
    expect(indexed.filter((row) => row.startsWith("JE gb.ee ")).length).toBeGreaterThan(0);
  });
});
