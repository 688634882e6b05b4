import type { DataRoute } from "../../data-api/route.ts";
import { capabilitiesListRoute } from "./capabilities-list.ts";
import { changesRoute } from "./changes.ts";
import { countriesListRoute } from "./countries-list.ts";
import { countryGetRoute } from "./country-get.ts";
import type { CatalogRouteEnv } from "./define.ts";
import { exportCsvRoute } from "./export-csv.ts";
import { lookupBatchRoute } from "./lookup-batch.ts";
import { lookupRoute } from "./lookup.ts";
import { metaRoute } from "./meta.ts";
import { networkGetRoute } from "./network-get.ts";
import { networksListRoute } from "./networks-list.ts";
import { numberRangeGetRoute } from "./number-range-get.ts";
import { numberRangesListRoute } from "./number-ranges-list.ts";
import { operatorGetRoute } from "./operator-get.ts";
import { operatorsListRoute } from "./operators-list.ts";
import { snapshotRoute } from "./snapshot.ts";

/**
 * Every /v1 route of the catalogue (docs/api.md), in the order the docs list them. The wiring mounts
 * them (app/http-app.ts) and gives them to the API reference (docs/openapi.ts); GET /v1/openapi.json
 * itself is the API reference's.
 */
export const DATA_ROUTES: readonly DataRoute<any, CatalogRouteEnv>[] = [
  metaRoute,
  countriesListRoute,
  countryGetRoute,
  operatorsListRoute,
  operatorGetRoute,
  networksListRoute,
  networkGetRoute,
  numberRangesListRoute,
  numberRangeGetRoute,
  capabilitiesListRoute,
  lookupRoute,
  lookupBatchRoute,
  changesRoute,
  exportCsvRoute,
  snapshotRoute,
];
