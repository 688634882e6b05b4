import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { startTestServer, type TestServer } from "../../testing/index.ts";
import { openDatabase, type Db } from "./db.ts";
import { isWriteConflict, lockAccount, writeTransaction } from "./transaction.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

let n = 0;
/** A fresh row key in sms_throttle, the simplest table with a primary key and one number. */
const key = () => `+8613${String(Date.now() % 1e6).padStart(6, "0")}${String(n++).padStart(3, "0")}`;
const valueOf = async (phone: string) =>
  (await server.deps.db.selectFrom("sms_throttle").select("next_send_at").where("phone", "=", phone).executeTakeFirst())?.next_send_at;
/** What the database reports for a deadlock (InnoDB, or a Galera certification failure). */
const deadlock = () => Object.assign(new Error("Deadlock found when trying to get lock; try restarting transaction"), { errno: 1213, code: "ER_LOCK_DEADLOCK" });

describe("writeTransaction", () => {
  it("commits, then runs the afterCommit hooks in order, with the rows visible to other connections", async () => {
    const db = server.deps.db;
    const phone = key();
    const seen: Array<number | undefined> = [];
    const result = await writeTransaction(db, async (trx, { afterCommit }) => {
      await trx.insertInto("sms_throttle").values({ phone, next_send_at: 7 }).execute();
      afterCommit(async () => seen.push(await valueOf(phone)));
      afterCommit(() => seen.push(-1));
      return "done";
    });
    expect(result).toBe("done");
    expect(seen).toEqual([7, -1]);
  });

  it("rolls back on an error and never runs the hooks", async () => {
    const phone = key();
    let ran = false;
    await expect(
      writeTransaction(server.deps.db, async (trx, { afterCommit }) => {
        await trx.insertInto("sms_throttle").values({ phone, next_send_at: 1 }).execute();
        afterCommit(() => (ran = true));
        throw new AppError("CONFLICT");
      }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    expect(ran).toBe(false);
    expect(await valueOf(phone)).toBeUndefined();
  });

  it("runs the whole transaction again after a deadlock; hooks of the aborted attempts never run", async () => {
    const phone = key();
    let attempts = 0;
    const sent: number[] = [];
    await writeTransaction(
      server.deps.db,
      async (trx, { afterCommit }) => {
        attempts++;
        await trx.insertInto("sms_throttle").values({ phone, next_send_at: attempts }).execute();
        afterCommit(() => sent.push(attempts));
        if (attempts < 3) throw deadlock();
      },
      { random: () => 0 },
    );
    expect(attempts).toBe(3);
    expect(sent).toEqual([3]);
    expect(await valueOf(phone)).toBe(3);
  });

  it("gives up after the bounded attempts with 503 and Retry-After, and retries nothing else", async () => {
    let attempts = 0;
    const error = await writeTransaction(
      server.deps.db,
      async () => {
        attempts++;
        throw Object.assign(new Error("Lock wait timeout exceeded"), { errno: 1205 });
      },
      { attempts: 4, random: () => 0 },
    ).catch((e: unknown) => e);
    expect(attempts).toBe(4);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", headers: { "Retry-After": "1" } });

    let plain = 0;
    await expect(
      writeTransaction(server.deps.db, async () => {
        plain++;
        throw new Error("not a conflict");
      }),
    ).rejects.toThrow("not a conflict");
    expect(plain).toBe(1);
  });

  it("nested calls join the outer transaction: one commit, hooks after it, one rollback for all", async () => {
    const db = server.deps.db;
    const [a, b] = [key(), key()];
    const order: string[] = [];
    await writeTransaction(db, async (trx, { afterCommit }) => {
      await trx.insertInto("sms_throttle").values({ phone: a, next_send_at: 1 }).execute();
      await writeTransaction(trx, async (inner, hooks) => {
        expect(inner).toBe(trx);
        await inner.insertInto("sms_throttle").values({ phone: b, next_send_at: 2 }).execute();
        hooks.afterCommit(() => order.push("inner"));
      });
      order.push("body done");
      afterCommit(() => order.push("outer"));
    });
    expect(order).toEqual(["body done", "inner", "outer"]);

    const c = key();
    await expect(
      writeTransaction(db, async (trx) => {
        await trx.insertInto("sms_throttle").values({ phone: c, next_send_at: 1 }).execute();
        await writeTransaction(trx, async () => {
          throw new Error("inner failed");
        });
      }),
    ).rejects.toThrow("inner failed");
    expect(await valueOf(c)).toBeUndefined();
  });

  it("a hook that throws does not stop the others; its error reaches the caller after the commit", async () => {
    const phone = key();
    const ran: string[] = [];
    await expect(
      writeTransaction(server.deps.db, async (trx, { afterCommit }) => {
        await trx.insertInto("sms_throttle").values({ phone, next_send_at: 5 }).execute();
        afterCommit(() => {
          throw new Error("hook failed");
        });
        afterCommit(() => ran.push("second"));
      }),
    ).rejects.toThrow("hook failed");
    expect(ran).toEqual(["second"]);
    expect(await valueOf(phone)).toBe(5);
  });

  // REPEATABLE READ (MySQL's default) would read the first value twice. The pool's connections start at
  // READ COMMITTED (no SET per transaction); an instance derived with withPlugin sets it per transaction.
  it.runIf(process.env.IR21_TEST_DB === "mysql")("MySQL/MariaDB: a write transaction reads at READ COMMITTED, on the pool's own instance and on a derived one", async () => {
    const other = openDatabase(server.deps.config.databaseUrl);
    try {
      const derived = server.deps.db.withPlugin({ transformQuery: (args) => args.node, transformResult: async (args) => args.result }) as Db;
      for (const db of [server.deps.db, derived]) {
        const phone = key();
        await db.insertInto("sms_throttle").values({ phone, next_send_at: 1 }).execute();
        const read = async (trx: Db) => Number((await trx.selectFrom("sms_throttle").select("next_send_at").where("phone", "=", phone).executeTakeFirstOrThrow()).next_send_at);
        const seen = await writeTransaction(db, async (trx) => {
          const first = await read(trx);
          await other.db.updateTable("sms_throttle").set({ next_send_at: 2 }).where("phone", "=", phone).execute();
          return [first, await read(trx)];
        });
        expect(seen).toEqual([1, 2]);
      }
    } finally {
      await other.close();
    }
  });

  it("classifies conflicts: MySQL 1213 and 1205, SQLite busy; not duplicates or syntax errors", () => {
    expect(isWriteConflict(deadlock())).toBe(true);
    expect(isWriteConflict({ errno: 1205 })).toBe(true);
    expect(isWriteConflict({ code: "SQLITE_BUSY_SNAPSHOT" })).toBe(true);
    expect(isWriteConflict({ errno: 1062, code: "ER_DUP_ENTRY" })).toBe(false);
    expect(isWriteConflict({ code: "SQLITE_CONSTRAINT_UNIQUE" })).toBe(false);
    expect(isWriteConflict(new Error("x"))).toBe(false);
  });

  it("survives a real write conflict of the database", async () => {
    const db = server.deps.db;
    const [a, b] = [key(), key()];
    await db.insertInto("sms_throttle").values([{ phone: a, next_send_at: 0 }, { phone: b, next_send_at: 0 }]).execute();
    let attempts = 0;
    if (server.target === "mysql") {
      // Two transactions lock a and b in opposite orders: InnoDB detects the deadlock and aborts one,
      // which the helper runs again once the other has committed.
      let arrived = 0;
      let release!: () => void;
      const bothLocked = new Promise<void>((resolve) => (release = resolve));
      const crosswise = (first: string, second: string) =>
        writeTransaction(db, async (trx) => {
          attempts++;
          await trx.updateTable("sms_throttle").set((eb) => ({ next_send_at: eb("next_send_at", "+", 1) })).where("phone", "=", first).execute();
          if (++arrived === 2) release();
          await bothLocked;
          await trx.updateTable("sms_throttle").set((eb) => ({ next_send_at: eb("next_send_at", "+", 1) })).where("phone", "=", second).execute();
        });
      await Promise.all([crosswise(a, b), crosswise(b, a)]);
      expect(attempts).toBe(3);
      expect([await valueOf(a), await valueOf(b)]).toEqual([2, 2]);
      return;
    }
    // SQLite (WAL): a transaction that read, then finds another connection committed a write before
    // its own first write, gets SQLITE_BUSY_SNAPSHOT at once; the helper runs it again.
    const other = new SQLite(server.deps.config.databaseUrl.replace(/^file:/, ""));
    try {
      await writeTransaction(db, async (trx) => {
        attempts++;
        const { next_send_at } = await trx.selectFrom("sms_throttle").select("next_send_at").where("phone", "=", a).executeTakeFirstOrThrow();
        if (attempts === 1) other.prepare("UPDATE sms_throttle SET next_send_at = next_send_at + 10 WHERE phone = ?").run(a);
        await trx.updateTable("sms_throttle").set({ next_send_at: next_send_at + 1 }).where("phone", "=", a).execute();
      });
    } finally {
      other.close();
    }
    expect(attempts).toBe(2);
    expect(await valueOf(a)).toBe(11);
  });
});

describe("lockAccount", () => {
  it("serialises a count-then-insert per account: 20 parallel inserts under a cap of 5 leave exactly 5", async () => {
    const db = server.deps.db;
    const userId = `usr_locktest${Date.now()}`;
    await db.insertInto("users").values({ id: userId, phone: key(), name: null, plan: "free", created_at: 0 }).execute();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        writeTransaction(db, async (trx) => {
          expect(await lockAccount(trx, userId)).toBe(true);
          const { count } = await trx
            .selectFrom("contact_inquiries")
            .select((eb) => eb.fn.countAll<number>().as("count"))
            .where("user_id", "=", userId)
            .executeTakeFirstOrThrow();
          if (Number(count) >= 5) throw new AppError("CONFLICT");
          await trx
            .insertInto("contact_inquiries")
            .values({ id: `inq_locktest${Date.now()}${i}`, name: "n", email: "a@example.com", company: "c", message: "m", user_id: userId, ip: null, created_at: i })
            .execute();
        }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    expect(results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(Array(15).fill("CONFLICT"));
    const rows = await db.selectFrom("contact_inquiries").select("id").where("user_id", "=", userId).execute();
    expect(rows).toHaveLength(5);
    expect(await writeTransaction(db, (trx) => lockAccount(trx, "usr_nosuchaccount00"))).toBe(false);
  });
});
