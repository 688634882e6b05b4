import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../config.ts";
import { startTestServer, type TestServer } from "../../../testing/index.ts";
import { startCatalogue } from "../background.ts";
import { catalogSettings } from "../../catalog/settings.ts";
import { listVersions } from "../../catalog/model/versions.ts";

describe("first start", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { CATALOG_IMPORT_ON_START: "true" } });
  });
  afterAll(() => server.close());

  it("imports the reference data when there is no dataset, once", async () => {
    expect((await server.json("/readyz")).status).toBe(503);
    await (await startCatalogue(server.deps)).stop();
    server.deps.datasetMeta.invalidate();
    const ready = await server.json("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.meta).toMatchObject({ source_mode: "reference", dataset_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}\.000001$/) });
    await (await startCatalogue(server.deps)).stop();
    expect(await listVersions(server.deps.db, { limit: 5 })).toHaveLength(1);
  }, 60_000);
});

describe("scheduled import", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        CATALOG_IMPORT_ON_START: "false",
        CATALOG_IMPORT_SCHEDULE: "* * * * * *",
        CATALOG_IMPORT_MODE: "ir21",
        CATALOG_IMPORT_FOLDER: fileURLToPath(new URL("../../../samples/ir21", import.meta.url)),
      },
    });
  });
  afterAll(() => server.close());

  it("runs on the shared cron (slot claimed in cron_runs), imports once, and stops cleanly", async () => {
    const catalog = await startCatalogue(server.deps);
    try {
      const deadline = Date.now() + 30_000;
      while ((await listVersions(server.deps.db, { limit: 5 })).length === 0) {
        if (Date.now() > deadline) throw new Error("no scheduled import within 30 s");
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 1_500));
    } finally {
      await catalog.stop();
    }
    // Later slots found the source unchanged: still one version.
    const versions = await listVersions(server.deps.db, { limit: 5 });
    expect(versions.map((v) => v.sourceMode)).toEqual(["ir21"]);
    const claimed = await server.deps.db.selectFrom("cron_runs").select("run_key").where("run_key", "like", "catalog.import:%").execute();
    expect(claimed.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

describe("catalogue settings", () => {
  it("is off by default and validates the schedule", () => {
    expect(catalogSettings({})).toEqual({ schedule: null, mode: "reference", folder: null, importOnStart: null, changesRetentionDays: 90 });
    expect(catalogSettings({ CATALOG_CHANGES_RETENTION_DAYS: "7" }).changesRetentionDays).toBe(7);
    expect(() => catalogSettings({ CATALOG_CHANGES_RETENTION_DAYS: "0" })).toThrow(ConfigError);
    expect(() => catalogSettings({ CATALOG_IMPORT_SCHEDULE: "every day" })).toThrow(ConfigError);
    expect(() => catalogSettings({ CATALOG_IMPORT_SCHEDULE: "0 3 * * *", CATALOG_IMPORT_MODE: "mixed" })).toThrow(/CATALOG_IMPORT_FOLDER/);
    expect(catalogSettings({ CATALOG_IMPORT_SCHEDULE: "0 3 * * *", CATALOG_IMPORT_MODE: "mixed", CATALOG_IMPORT_FOLDER: "/srv/ir21" })).toMatchObject({
      schedule: "0 3 * * *",
      mode: "mixed",
      folder: "/srv/ir21",
    });
  });
});
