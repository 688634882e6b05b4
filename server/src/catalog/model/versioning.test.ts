import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { importDataset } from "../import/import.ts";
import { demoDataset } from "../import/importers/demo.ts";

let server: TestServer;
let key: { "x-api-key": string };
beforeAll(async () => {
  server = await startTestServer({ dataset: "demo" });
  key = (await createApiKey(server, await signIn(server))).headers;
});
afterAll(() => server.close());

/** Version A: every range held by "A"; version B: every range held by "B", plus one more range. */
function variant(holder: string, extra: boolean) {
  const d = demoDataset();
  for (const r of d.numberRanges) r.range_holder = holder;
  if (extra) d.numberRanges.push({ ...d.numberRanges[0]!, id: "e164-86188", prefix: "86188", range_holder: holder });
  return d;
}

describe("version switch under concurrent reads", () => {
  it("every answer is wholly version A or wholly version B, and its meta names that version", async () => {
    const a = await importDataset(server.deps, variant("A", false));
    server.deps.datasetMeta.invalidate();
    const headers = key;
    const observed: { version: string; holders: string[]; count: number }[] = [];
    let importing = true;
    const readers = Array.from({ length: 4 }, async () => {
      while (importing) {
        const res = await server.json("/v1/number-ranges?plan=e164&limit=1000", { headers });
        expect(res.status).toBe(200);
        observed.push({
          version: res.body.meta.dataset_version,
          holders: [...new Set<string>(res.body.data.items.map((r: { range_holder: string }) => r.range_holder))],
          count: res.body.data.items.length,
        });
        server.deps.datasetMeta.invalidate();
      }
    });
    const b = await (async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const result = await importDataset(server.deps, variant("B", true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      importing = false;
      return result;
    })();
    await Promise.all(readers);
    expect(observed.length).toBeGreaterThan(2);
    for (const o of observed) {
      if (o.version === a.version) expect(o).toMatchObject({ holders: ["A"], count: 6 });
      else expect(o).toMatchObject({ version: b.version, holders: ["B"], count: 7 });
    }
    expect(observed.some((o) => o.version === a.version)).toBe(true);
    expect(observed.at(-1)!.version).toBe(b.version);
  });
});
