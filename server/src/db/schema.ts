import type { AuthTables } from "../auth/tables.ts";
import type { CatalogTables } from "../catalog/tables.ts";
import type { ConsoleTables } from "../console/tables.ts";
import type { ContactTables } from "../contact/tables.ts";
import type { JobTables } from "../jobs/tables.ts";
import type { WebhookTables } from "../webhooks/tables.ts";

/**
 * The Kysely database type: each domain declares its own tables beside its code, and they meet here.
 */
export interface Database extends CatalogTables, ContactTables, JobTables, AuthTables, ConsoleTables, WebhookTables {}
