import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTransaction } from "../db/transaction.ts";
import { agreementOf, randomPhone, startTestServer, type TestServer } from "../testing/index.ts";
import { admitUnderLocks, newChallenge } from "./challenges.ts";
import { authJobs } from "./retention.ts";

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
