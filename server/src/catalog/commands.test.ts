import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../config.ts";
import { startTestServer, type TestServer } from "../testing/index.ts";
import { startCatalog } from "./commands.ts";
import { catalogSettings } from "./settings.ts";
import { listVersions } from "./versions.ts";

describe("first start", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { CATALOG_IMPORT_ON_START: "true" } });
  });
  afterAll(() => server.close());

  it("imports the reference data when there is no dataset, once", async () => {
    expect((await server.json("/readyz")).status).toBe(503);
    (await startCatalog(server.deps)).stop();
    server.deps.datasetMeta.invalidate();
    const ready = await server.json("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.meta).toMatchObject({ source_mode: "reference", dataset_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}\.000001$/) });
    (await startCatalog(server.deps)).stop();
    expect(await listVersions(server.deps.db, { limit: 5 })).toHaveLength(1);
  }, 60_000);
});

describe("catalogue settings", () => {
  it("is off by default and validates the schedule", () => {
    expect(catalogSettings({})).toEqual({ schedule: null, mode: "reference", folder: null, importOnStart: null });
    expect(() => catalogSettings({ CATALOG_IMPORT_SCHEDULE: "every day" })).toThrow(ConfigError);
    expect(() => catalogSettings({ CATALOG_IMPORT_SCHEDULE: "0 3 * * *", CATALOG_IMPORT_MODE: "mixed" })).toThrow(/CATALOG_IMPORT_FOLDER/);
    expect(catalogSettings({ CATALOG_IMPORT_SCHEDULE: "0 3 * * *", CATALOG_IMPORT_MODE: "mixed", CATALOG_IMPORT_FOLDER: "/srv/ir21" })).toMatchObject({
      schedule: "0 3 * * *",
      mode: "mixed",
      folder: "/srv/ir21",
    });
  });
});
