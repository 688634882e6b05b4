import type { H3 } from "h3";
import type { AppDeps } from "../../app/deps.ts";
import { capabilitiesListRoute } from "./capabilities-list.ts";
import { changesRoute } from "./changes.ts";
import { countriesListRoute } from "./countries-list.ts";
import { countryGetRoute } from "./country-get.ts";
import { exportCsvRoute } from "./export-csv.ts";
import { lookupBatchRoute } from "./lookup-batch.ts";
import { lookupRoute } from "./lookup.ts";
import { metaRoute } from "./meta.ts";
import { networkGetRoute } from "./network-get.ts";
import { networksListRoute } from "./networks-list.ts";
import { numberRangeGetRoute } from "./number-range-get.ts";
import { numberRangesListRoute } from "./number-ranges-list.ts";
import { openApiRoute } from "../../docs/openapi.ts";
import { operatorGetRoute } from "./operator-get.ts";
import { operatorsListRoute } from "./operators-list.ts";
import { mountDataRoutes, type DataRoute, type MountOptions } from "../../data-api/route.ts";
import { snapshotRoute } from "./snapshot.ts";

/** Every /v1 route (docs/api.md), in the order the docs list them. */
export const DATA_ROUTES: readonly DataRoute[] = [
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
  openApiRoute,
];

/** Mounts the /v1 data API (a RouteMount for http/app.ts). */
export function mountCatalogRoutes(app: H3, deps: AppDeps, options: MountOptions = {}): void {
  mountDataRoutes(app, deps, DATA_ROUTES, options);
}
