import type { Migration } from "kysely";
import * as core from "./0001_core.ts";
import * as writeLocks from "./0020_write_locks.ts";
import * as catalog from "./0100_catalog.ts";
import * as catalogChangeRetention from "./0101_catalog_change_retention.ts";
import * as numberRangeKind from "./0102_number_range_kind.ts";
import * as operatorLineage from "./0103_operator_lineage.ts";
import * as operatorTerritories from "./0107_operator_territories.ts";
import * as operatorTerritoryIndex from "./0110_operator_territory_index.ts";
import * as catalogSourceSets from "./0111_catalog_source_sets.ts";
import * as catalogLineage from "./0112_catalog_lineage.ts";
import * as datasetVersionSources from "./0113_dataset_version_sources.ts";
import * as accounts from "./0200_accounts.ts";
import * as smsSendOutcome from "./0202_sms_send_outcome.ts";
import * as smsServiceLock from "./0203_sms_service_lock.ts";
import * as consoleTables from "./0300_console.ts";
import * as webhooks from "./0400_webhooks.ts";
import * as webhookInFlight from "./0401_webhook_in_flight.ts";
import * as webhookWorkers from "./0402_webhook_workers.ts";
import * as webhookListen from "./0410_webhook_listen.ts";

/**
 * Every migration, by name. Names sort in apply order; each domain has its own hundred
 * (0001-0099 core, 0100 catalogue, 0200 accounts, 0300 console, 0400 webhooks) so that work on
 * different domains never competes for a number.
 */
export const migrations: Record<string, Migration> = {
  "0001_core": core,
  "0020_write_locks": writeLocks,
  "0100_catalog": catalog,
  "0101_catalog_change_retention": catalogChangeRetention,
  "0102_number_range_kind": numberRangeKind,
  "0103_operator_lineage": operatorLineage,
  "0107_operator_territories": operatorTerritories,
  "0110_operator_territory_index": operatorTerritoryIndex,
  "0111_catalog_source_sets": catalogSourceSets,
  "0112_catalog_lineage": catalogLineage,
  "0113_dataset_version_sources": datasetVersionSources,
  "0200_accounts": accounts,
  "0202_sms_send_outcome": smsSendOutcome,
  "0203_sms_service_lock": smsServiceLock,
  "0300_console": consoleTables,
  "0400_webhooks": webhooks,
  "0401_webhook_in_flight": webhookInFlight,
  "0402_webhook_workers": webhookWorkers,
  "0410_webhook_listen": webhookListen,
};
