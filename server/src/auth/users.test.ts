import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertUnlessDuplicate } from "../db/db.ts";
import { randomPhone, signIn, startTestServer, type TestServer } from "../../testing/index.ts";
import { toE164 } from "./phone.ts";
import { findOrCreateUser, recordAgreements } from "./users.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const phone = () => toE164(randomPhone())!;

describe("insertUnlessDuplicate", () => {
  it("inserts once, then reports the duplicate key instead of failing", async () => {
    const db = server.deps.db;
    const p = phone();
    expect(await insertUnlessDuplicate(db, db.insertInto("sms_throttle").values({ phone: p, next_send_at: 5 }))).toBe(true);
    expect(await insertUnlessDuplicate(db, db.insertInto("sms_throttle").values({ phone: p, next_send_at: 9 }))).toBe(false);
    const row = await db.selectFrom("sms_throttle").select("next_send_at").where("phone", "=", p).executeTakeFirstOrThrow();
    expect(row.next_send_at).toBe(5);
  });

  it("skips only duplicates: a row breaking NOT NULL is an error, not stored mangled nor passed off as a duplicate", async () => {
    // INSERT IGNORE would store '' on MySQL and INSERT OR IGNORE would skip the row on SQLite, both silently.
    const db = server.deps.db;
    const p = phone();
    const row = { id: `usr_notnull${Date.now()}`, phone: p, name: null, plan: null as unknown as string, created_at: 1 };
    await expect(insertUnlessDuplicate(db, db.insertInto("users").values(row))).rejects.toThrow();
    expect(await db.selectFrom("users").select("id").where("phone", "=", p).executeTakeFirst()).toBeUndefined();
  });

  it("inside a transaction, a duplicate leaves the transaction usable", async () => {
    const db = server.deps.db;
    const p = phone();
    await db.insertInto("sms_throttle").values({ phone: p, next_send_at: 1 }).execute();
    const other = phone();
    await db.transaction().execute(async (trx) => {
      expect(await insertUnlessDuplicate(trx, trx.insertInto("sms_throttle").values({ phone: p, next_send_at: 2 }))).toBe(false);
      await trx.insertInto("sms_throttle").values({ phone: other, next_send_at: 3 }).execute();
    });
    expect(await db.selectFrom("sms_throttle").select("next_send_at").where("phone", "in", [p, other]).orderBy("next_send_at").execute()).toEqual([
      { next_send_at: 1 },
      { next_send_at: 3 },
    ]);
  });
});

describe("findOrCreateUser", () => {
  it("creates a new number once (created: true), then finds it (created: false)", async () => {
    const p = phone();
    const first = await findOrCreateUser(server.deps.db, server.clock, p);
    const again = await findOrCreateUser(server.deps.db, server.clock, p);
    expect([first.created, again.created]).toEqual([true, false]);
    expect(again.user.id).toBe(first.user.id);
  });

  it("the loser of a race for a new number gets the winner's row and created: false, inside its transaction", async () => {
    const db = server.deps.db;
    const p = phone();
    let winnerId = "";
    const loser = await db.transaction().execute(async (trx) => {
      // The loser has already read (on MySQL this fixes its REPEATABLE READ snapshot) when the winner
      // creates and commits the account on another connection.
      expect(await trx.selectFrom("users").select("id").where("phone", "=", p).executeTakeFirst()).toBeUndefined();
      if (server.target === "mysql") {
        winnerId = (await db.transaction().execute((other) => findOrCreateUser(other, server.clock, p))).user.id;
        return findOrCreateUser(trx, server.clock, p);
      }
      // SQLite serialises transactions: the winner's row is simply there (same connection).
      winnerId = (await findOrCreateUser(trx, server.clock, p)).user.id;
      return findOrCreateUser(trx, server.clock, p);
    });
    expect(loser.created).toBe(false);
    expect(loser.user.id).toBe(winnerId);
    expect(await db.selectFrom("users").select("id").where("phone", "=", p).execute()).toEqual([{ id: winnerId }]);
  });
});

describe("recordAgreements", () => {
  it("keeps the first acceptance of a version and adds a row for a new one, even when the other is unchanged", async () => {
    const alice = await signIn(server);
    const db = server.deps.db;
    const from = { ip: "203.0.113.7", userAgent: "test" };
    const current = server.deps.config.agreement;
    const before = await db.selectFrom("user_agreements").selectAll().where("user_id", "=", alice.userId).orderBy("document").execute();
    expect(before.map((r) => [r.document, r.version])).toEqual([
      ["privacy", current.privacyVersion],
      ["terms", current.termsVersion],
    ]);
    server.clock.advance(60_000);
    await recordAgreements(db, server.clock, alice.userId, { termsVersion: current.termsVersion, privacyVersion: "2027-01-01" }, from);
    const after = await db.selectFrom("user_agreements").selectAll().where("user_id", "=", alice.userId).orderBy("document").orderBy("version").execute();
    expect(after.map((r) => [r.document, r.version])).toEqual([
      ["privacy", current.privacyVersion],
      ["privacy", "2027-01-01"],
      ["terms", current.termsVersion],
    ]);
    // The first acceptance of the unchanged terms is kept as it was.
    expect(after.find((r) => r.document === "terms")!.accepted_at).toBe(before.find((r) => r.document === "terms")!.accepted_at);
  });
});
