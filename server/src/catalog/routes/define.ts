import { routeDefiner } from "../../data-api/route.ts";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/db.ts";
import type { LookupIndexes } from "../lookup/lookup-index.ts";

/** What the catalogue's /v1 handlers are given (the wiring builds it once, app/deps.ts). */
export interface CatalogRouteEnv {
  db: Db;
  /** Today, for the sources' ages (/v1/meta). */
  clock: Clock;
  /** Each dataset version's in-memory lookup index, built on first use. */
  lookupIndexes: LookupIndexes;
}

/** Defines a catalogue route: a data-api route whose handlers get {@link CatalogRouteEnv}. */
export const defineCatalogRoute = routeDefiner<CatalogRouteEnv>();
