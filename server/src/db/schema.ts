import type { AuthTables } from "../auth/tables.ts";
import type { CatalogTables } from "../catalog/model/tables.ts";
import type { ConsoleTables } from "../console/tables.ts";
import type { ContactTables } from "../contact/tables.ts";
import type { JobTables } from "../jobs/tables.ts";
import type { WebhookTables } from "../webhooks/tables.ts";

/** Rows writers of one thing take turns on (migrations/0020_write_locks.ts, transaction.ts `writeLock`). */
export interface WriteLockTable {
  name: string;
  seq: number;
}

/**
 * The Kysely database type: each domain declares its own tables beside its code, and they meet here.
 */
export interface Database extends CatalogTables, ContactTables, JobTables, AuthTables, ConsoleTables, WebhookTables {
  write_locks: WriteLockTable;
}
