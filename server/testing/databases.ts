import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnection } from "mysql2/promise";
import { randomBytes } from "node:crypto";

export type TestTarget = "sqlite" | "mysql";

/** Which database the suite runs on: IR21_TEST_DB=sqlite (default) or mysql. */
export function testTarget(): TestTarget {
  return process.env.IR21_TEST_DB === "mysql" ? "mysql" : "sqlite";
}

export const TEST_MYSQL_URL = () => process.env.IR21_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306";
export const TEST_REDIS_URL = () => process.env.IR21_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestDatabase {
  url: string;
  /** A scratch directory for this database's server (secrets, SMS outbox, exports). */
  dir: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database: a SQLite file in a new temp dir, or a new MySQL schema with a random name,
 * so test files never see each other's rows.
 */
export async function createTestDatabase(target: TestTarget = testTarget()): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "ir21-test-"));
  if (target === "sqlite") {
    return { url: `file:${join(dir, "ir21.sqlite")}`, dir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const server = new URL(TEST_MYSQL_URL());
  server.pathname = "";
  const base = server.toString().replace(/\/$/, "");
  const name = `ir21_t_${randomBytes(6).toString("hex")}`;
  const admin = await createConnection({ uri: base });
  try {
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  } finally {
    await admin.end();
  }
  return {
    url: `${base}/${name}`,
    dir,
    async drop() {
      const conn = await createConnection({ uri: base });
      try {
        await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await conn.end();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
