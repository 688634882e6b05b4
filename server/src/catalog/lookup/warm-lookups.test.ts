import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../testing/index.ts";
import { buildLookupIndex } from "./lookup-index.ts";
import { GeoData } from "./number-geo.ts";
import { warmLookups } from "./warm-up.ts";

/**
 * The warm-up after listen (serve.ts → warmLookups) loads the lookup index and +86's geocoding data
 * (~1 s of work). It must leave the event loop to requests between its slices: a request that arrives
 * meanwhile is answered before the warm-up ends, not after it. Counted in answers, not timed.
 */
let server: TestServer;

beforeAll(async () => {
  // Test servers do not warm on start (startTestServer), so the warm-up below is the first.
  server = await startTestServer({ dataset: "demo" });
}, 120_000);
afterAll(() => server.close());

async function healthz(): Promise<number> {
  const response = await fetch(`${server.url}/healthz`);
  await response.arrayBuffer();
  return response.status;
}

describe("warmLookups", () => {
  it("answers requests while it loads the geocoding data (the index already built)", async () => {
    // The index first, through a lookup that needs no +86 data: what is left to warm is the +86
    // geocoding and time-zone files, which a blocking load reads and deserialises in one stretch.
    expect((await server.json("/v1/lookup?number=%2B442079460000")).status).toBe(200);
    let warming = true;
    const warm = warmLookups({ versions: server.deps.datasetMeta, lookupIndexes: server.deps.catalog.lookupIndexes }).finally(() => (warming = false));
    let answeredWhileWarming = 0;
    while (warming) {
      const status = await healthz();
      expect(status).toBe(200);
      if (warming) answeredWhileWarming++;
    }
    await warm;
    expect(answeredWhileWarming).toBeGreaterThan(0);
  });

  it("loads each geocoding file in slices, the server answering at every pause", async () => {
    const statuses: number[] = [];
    const geo = new GeoData(null);
    await geo.warm(["86"], async () => {
      statuses.push(await healthz());
    });
    // +86 in English and Chinese (130,146 prefixes each: a read, then slices of the map) and the time-zone map.
    expect(statuses.length).toBeGreaterThanOrEqual(2 * (1 + Math.ceil(130_146 / 20_000)) + 1);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(geo.locationOf("86", "1391234567", "MOBILE", true)).toEqual({ en: expect.any(String), zh: expect.any(String) });
  });
});

describe("buildLookupIndex", () => {
  it("pauses every 2,000 records, the server answering at every pause (reference dataset: 28,884 ranges)", async () => {
    const reference = await startTestServer({ dataset: "reference" });
    try {
      const { seq } = await reference.deps.datasetMeta.pinned();
      const statuses: number[] = [];
      const index = await buildLookupIndex(reference.deps.db, seq, {
        pause: async () => {
          const response = await fetch(`${reference.url}/healthz`);
          await response.arrayBuffer();
          statuses.push(response.status);
        },
      });
      expect(index.e164.size).toBeGreaterThan(28_000);
      expect(statuses.length).toBeGreaterThanOrEqual(Math.floor(28_884 / 2_000));
      expect(statuses.every((status) => status === 200)).toBe(true);
    } finally {
      await reference.close();
    }
  }, 120_000);
});
