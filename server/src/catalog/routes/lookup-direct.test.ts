import { describe, expect, it } from "vitest";
import { createApp } from "../../app/http-app.ts";
import { startTestServer } from "../../../testing/index.ts";
import { directAnswersSuite, send } from "../../../testing/direct-answers.ts";

/**
 * GET /v1/lookup's direct handler (answers spliced from prebuilt fragments, route.ts `serialised`)
 * against the generic one (`handle`, the output schema, h3's serialisation): the same requests
 * through both, over the same server state, give the same status, headers and body. Only the date
 * differs, and the rate limit's remaining count, which must have fallen by one between the two:
 * each way counts the attempt. Request ids are given inbound, so they are compared too.
 */
const QUOTA = 100;
const suite = directAnswersSuite(QUOTA);

describe("GET /v1/lookup: direct and generic handlers answer alike", () => {
  it("numbers, IMSIs, both projections, session, bad and missing parameters, bad credentials, other methods", async () => {
    const anonymous = {};
    const session = { headers: suite.alice.headers };
    const withKey = { headers: suite.key };
    const cases: [string, RequestInit][] = [];
    for (const who of [anonymous, withKey, session]) {
      for (const query of [
        "number=%2B8613912345678",
        "number=13312345678&country=CN",
        "number=%2B447700900123",
        "number=%2B8680012345678", // toll-free: no range named
        "number=%2B861391234", // too short
        "number=%2B999123456789", // no such calling code
        "imsi=460001234567890",
        "imsi=46000",
        "number=not-a-number",
        "number=13912345678", // national without a country
        "number=%2B8613912345678&imsi=460001234567890",
        "",
        "number=%2B8613912345678&number=%2B8613312345678",
        "number=%2B8613912345678&country=XX",
        // fields= (docs/api.md "Lookup fields"): narrowed answers, unknown names, non-public names.
        "number=%2B8613912345678&fields=number,valid,number_type,range_holder,operator.id,network.mcc,network.mnc",
        "number=%2B447700900123&fields=formats,location,time_zones,range.prefix,source,operator",
        "number=%2B8680012345678&fields=number,range_holder_reason,validation_reason",
        "number=%2B861391234&fields=validation_reason,formats.e164",
        "imsi=460001234567890&fields=imsi,mcc,network.id,operator.name",
        "number=%2B8613912345678&fields=number,nope",
        "number=%2B8613912345678&fields=range,networks.id",
        "number=%2B8613912345678&fields=",
      ]) cases.push([`/v1/lookup${query ? `?${query}` : ""}`, who]);
    }
    cases.push(["/v1/lookup?number=%2B8613912345678", { headers: { "x-api-key": "ir21_not_a_key" } }]);
    cases.push(["/v1/lookup?number=%2B8613912345678", { headers: { cookie: "ir21_session=forged" } }]);
    cases.push(["/v1/lookup?number=%2B8613912345678", { method: "HEAD", headers: suite.key }]);
    cases.push(["/v1/lookup?number=%2B8613912345678", { method: "HEAD" }]);
    cases.push(["/v1/lookup?number=%2B8613912345678", { method: "OPTIONS" }]);
    cases.push(["/v1/lookup?number=%2B8613912345678", { method: "POST", headers: suite.key }]);
    cases.push(["/v1/lookup?number=%2B8613912345678", { method: "GET", headers: { ...suite.key, "content-length": "999999999" } }]);

    const seen = new Set<number>();
    for (const [path, init] of cases) {
      const usedBefore = await suite.usedOf();
      const [reference] = await suite.both(path, init);
      seen.add(reference.status);
      // Quota: both ways charge a keyed or session success, and nothing else.
      const charged = reference.status === 200 && init.method !== "HEAD" && ((init.headers as Record<string, string> | undefined)?.["x-api-key"] === suite.key["x-api-key"] || init === session);
      if (init.method !== "HEAD") expect(await suite.usedOf(), path).toBe(usedBefore + (charged ? 2 : 0));
    }
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 400, 401, 405]));
    expect(seen.has(429), "the quota test below starts under its quota").toBe(false);
  });

  it("over quota: both refuse with the same 429 QUOTA_EXCEEDED", async () => {
    for (let i = 0; (await suite.usedOf()) < QUOTA && i <= QUOTA; i++) await suite.server.fetch("/v1/lookup?number=%2B8613912345678", { headers: suite.key }).then((r) => r.text());
    const [reference] = await suite.both("/v1/lookup?number=%2B8613912345678", { headers: suite.key });
    expect(reference.status).toBe(429);
    expect(JSON.parse(reference.body).code).toBe("QUOTA_EXCEEDED");
  });

  it("over the anonymous rate limit: both refuse with the same 429 RATE_LIMITED", async () => {
    let status = 200;
    for (let i = 0; status !== 429 && i < 200; i++) status = (await send(suite.generic, "/v1/lookup?number=%2B8613912345678", {}, "fill")).status;
    const [reference] = await suite.both("/v1/lookup?number=%2B8613912345678");
    expect(reference.status).toBe(429);
    expect(JSON.parse(reference.body).code).toBe("RATE_LIMITED");
  });

  it("before the first import: both answer 503 NO_DATASET", async () => {
    const empty = await startTestServer();
    try {
      const [a, b] = [createApp(empty.deps, { directAnswers: false }), createApp(empty.deps)];
      const reference = await send(a, "/v1/lookup?number=%2B8613912345678", {}, "empty");
      const answer = await send(b, "/v1/lookup?number=%2B8613912345678", {}, "empty");
      expect(reference.status).toBe(503);
      expect({ ...answer, remaining: null }).toEqual({ ...reference, remaining: null });
    } finally {
      await empty.close();
    }
  });
});
