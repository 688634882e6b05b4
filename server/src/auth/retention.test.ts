import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTransaction } from "../db/transaction.ts";
import { agreementOf, randomPhone, signIn, startTestServer, type TestServer } from "../../testing/index.ts";
import { admitUnderLocks, newChallenge } from "./challenges.ts";
import { authJobs, CHALLENGE_RETENTION_MS } from "./retention.ts";

let server: TestServer;
beforeAll(async () => {
  // Behind a trusted proxy, so each request names its client address (X-Forwarded-For).
  server = await startTestServer({ env: { TRUST_PROXY: "true" } });
});
afterAll(() => server.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RESEND = 60_000; // SMS_RESEND_INTERVAL_SECONDS' default

const sendCode = (phone: string, from: string) => server.json("/auth/sms/code", { method: "POST", body: { phone, ...agreementOf(server) }, headers: { "x-forwarded-for": from } });
/** The hourly job itself, run now (by the server's injected clock). */
const runJob = () => authJobs(server.deps)[0]!.run() as Promise<{ phones: number; addresses: number }>;

async function phonesKept(phones: string[]) {
  const rows = await server.deps.db.selectFrom("sms_throttle").select("phone").where("phone", "in", phones.map((p) => `+86${p}`)).execute();
  return rows.map((r) => r.phone.slice(3)).sort();
}
async function addressesKept(ips: string[]) {
  const rows = await server.deps.db.selectFrom("sms_address_gate").select("ip").where("ip", "in", ips).execute();
  return rows.map((r) => r.ip).sort();
}
async function addressLocks(ips: string[]) {
  const rows = await server.deps.db.selectFrom("write_locks").select("name").where("name", "in", ips.map((ip) => `sms-ip:${ip}`)).execute();
  return rows.map((r) => r.name).sort();
}

describe("auth.send-gate-retention", () => {
  it("purges a phone's row a day after its resend interval, an address's once it asked for nothing for a day; both come back on use", async () => {
    const [early, late] = [randomPhone(), randomPhone()].sort();
    const [quiet, busy] = ["198.51.100.7", "198.51.100.9"];
    const t0 = server.clock.now().getTime();
    expect((await sendCode(early!, quiet)).status).toBe(200);
    server.clock.set(t0 + 23 * HOUR);
    expect((await sendCode(late!, busy)).status).toBe(200);
    expect(await phonesKept([early!, late!])).toEqual([early, late].sort());
    expect(await addressesKept([quiet, busy])).toEqual([quiet, busy]);
    // On MySQL each address also has its write lock row (challenges.ts); SQLite needs none.
    if (server.target === "mysql") expect(await addressLocks([quiet, busy])).toEqual([`sms-ip:${quiet}`, `sms-ip:${busy}`]);

    // Just under a day after the quiet address's request: nothing is idle yet.
    server.clock.set(t0 + DAY - 1);
    expect(await runJob()).toEqual({ phones: 0, addresses: 0 });
    expect(await phonesKept([early!, late!])).toEqual([early, late].sort());
    expect(await addressesKept([quiet, busy])).toEqual([quiet, busy]);

    // A day after it (its request no longer counts for any cap): the quiet address goes. The early
    // phone stays: its resend interval ended a minute after its request, not yet a day ago.
    server.clock.set(t0 + DAY);
    expect(await runJob()).toMatchObject({ phones: 0 });
    expect(await addressesKept([quiet, busy])).toEqual([busy]);
    expect(await phonesKept([early!, late!])).toEqual([early, late].sort());
    server.clock.set(t0 + RESEND + DAY);
    expect(await runJob()).toEqual({ phones: 0, addresses: 0 });
    expect(await phonesKept([early!, late!])).toEqual([early, late].sort());

    // A millisecond later the early phone goes; the late phone and the busy address stay.
    server.clock.set(t0 + RESEND + DAY + 1);
    expect(await runJob()).toMatchObject({ addresses: 0 });
    expect(await phonesKept([early!, late!])).toEqual([late]);
    expect(await addressesKept([quiet, busy])).toEqual([busy]);
    expect(await addressLocks([quiet])).toEqual([]);
    if (server.target === "mysql") expect(await addressLocks([busy])).toEqual([`sms-ip:${busy}`]);
    // What the caps count is not touched: the challenges stay.
    const { n } = await server.deps.db.selectFrom("sms_challenges").select((eb) => eb.fn.countAll<number>().as("n")).where("phone", "in", [`+86${early}`, `+86${late}`]).executeTakeFirstOrThrow();
    expect(Number(n)).toBe(2);

    // The next request from the purged phone and address creates their rows again and is decided as before.
    expect((await sendCode(early!, quiet)).status).toBe(200);
    expect(await phonesKept([early!])).toEqual([early]);
    expect(await addressesKept([quiet])).toEqual([quiet]);
    const again = await sendCode(early!, quiet);
    expect(again.status).toBe(429);
    expect(again.body.code).toBe("SMS_SEND_LIMITED");

    // Nothing idle is left until the clock moves on.
    expect(await runJob()).toEqual({ phones: 0, addresses: 0 });
  });

  it("a send whose lock row was purged before it was locked stores nothing, so admitChallenge creates the row again", async () => {
    const phone = `+86${randomPhone()}`;
    const now = server.clock.now().getTime();
    const challenge = newChallenge(now, phone, "123456", server.deps.secrets.otpPepper, { ip: "198.51.100.20" }, { termsVersion: "t", privacyVersion: "p" });
    const limits = server.deps.auth.settings.sendLimits;
    expect(await writeTransaction(server.deps.db, (trx) => admitUnderLocks(trx, { now, limits, challenge }))).toBeNull();
    const stored = await server.deps.db.selectFrom("sms_challenges").select("id").where("phone", "=", phone).execute();
    expect(stored).toEqual([]);
  });
});

describe("auth.challenge-retention", () => {
  // Its own server: the service-wide cap counts every challenge in the database.
  let capped: TestServer;
  beforeAll(async () => {
    capped = await startTestServer({ env: { SMS_PHONE_DAILY_LIMIT: "2", SMS_GLOBAL_DAILY_LIMIT: "3" } });
  });
  afterAll(() => capped.close());

  const send = (phone: string) => capped.json("/auth/sms/code", { method: "POST", body: { phone, ...agreementOf(capped) } });
  const purge = () => authJobs(capped.deps).find((j) => j.name === "auth.challenge-retention")!.run() as Promise<{ challenges: number }>;
  const stored = async () => (await capped.deps.db.selectFrom("sms_challenges").select("phone").execute()).map((c) => c.phone.slice(3)).sort();

  it("deletes challenges older than the retention (consumed or not); the daily caps still count the day's sends after a purge", async () => {
    const [old, signedIn, phone, other] = [randomPhone(), randomPhone(), randomPhone(), randomPhone()];
    const t0 = capped.clock.now().getTime();
    expect((await send(old!)).status).toBe(200);
    await signIn(capped, signedIn); // a consumed challenge
    // Eight days (the documented retention) minus an hour later: both of the day-old rows are still kept.
    const t1 = t0 + 8 * DAY;
    expect(CHALLENGE_RETENTION_MS).toBe(8 * DAY);
    capped.clock.set(t1 - 2 * HOUR);
    expect((await send(phone!)).status).toBe(200);
    expect((await send(other!)).status).toBe(200);
    capped.clock.set(t1 - HOUR);
    expect((await send(phone!)).status).toBe(200);
    // Exactly at the retention's end nothing goes yet; a millisecond later the two old ones do.
    capped.clock.set(t1);
    expect(await purge()).toEqual({ challenges: 0 });
    expect(await stored()).toEqual([old, signedIn, phone, other, phone].sort());
    capped.clock.set(t1 + 1);
    expect(await purge()).toEqual({ challenges: 2 });
    expect(await stored()).toEqual([phone, other, phone].sort());
    expect(await purge()).toEqual({ challenges: 0 });

    // The phone's daily cap (2) still holds: its two sends of the last day were kept.
    const again = await send(phone!);
    expect(again.status).toBe(429);
    expect(again.body.code).toBe("SMS_SEND_LIMITED");
    expect(again.body.message).toMatch(/this phone today/);
    // Retry-After: until its first send of the day leaves the 24 h window.
    expect(Number(again.headers.get("retry-after"))).toBeCloseTo((t1 - 2 * HOUR + DAY - (t1 + 1)) / 1000, 0);
    // So does the service-wide cap (3), for a phone never seen before.
    const fresh = await send(randomPhone());
    expect(fresh.status).toBe(429);
    expect(fresh.body.message).toMatch(/sent by the service today/);
    expect(await stored()).toEqual([phone, other, phone].sort());
  });
});
