/**
 * GET /v1/changes?since=<version>&cursor=&limit=&types=&country=&operator=     API key or session
 *
 * The change log: events of the dataset versions after `since` (exclusive; "none" = from the start),
 * oldest first, up to the current version. Filters: `types` (event types), `country` and `operator`
 * (comma-separated or repeated; a merged near-duplicate's old operator id also matches its survivor's
 * events, docs/webhooks.md "Merged operator ids"). ir21.catalog.updated is always included, whatever the filters: it
 * means "reload the snapshot". Follow next_cursor until it is null; then remember current_version as
 * the next `since`. A `since` older than the change-log retention window is 400 like an unknown one
 * (catalog/retention.ts).
 *
 * 200 {code: 0, data: {items: EventPayload[], next_cursor, current_version}, meta}
 * 400 INVALID_REQUEST | UNKNOWN_DATASET_VERSION     401 UNAUTHORIZED
 */
import { z } from "zod";
import { Cursor } from "../../contract/common.ts";
import { EventPayload } from "../../contract/events.ts";
import { AppError } from "../../errors.ts";
import { queryChanges } from "../changes/changes.ts";
import { VERSION_PATTERN } from "../model/versions.ts";
import { CountryParam, EventTypes, OperatorIdParam, commaList } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

const ChangesCursor = z.object({ a: z.number().int().min(0), u: z.number().int().min(1), s: z.string() });

const encode = (c: z.infer<typeof ChangesCursor>) => Buffer.from(JSON.stringify(c)).toString("base64url");
function decode(cursor: string, since: string): z.infer<typeof ChangesCursor> {
  try {
    const parsed = ChangesCursor.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    if (parsed.s === since) return parsed;
  } catch {
    // fall through
  }
  throw new AppError("INVALID_REQUEST", "cursor: not a cursor returned for this `since`");
}

const Output = z.object({ items: z.array(EventPayload), next_cursor: z.string().nullable(), current_version: z.string() }).meta({ id: "ChangesPage" });

export const changesRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/changes",
  summary: "Changes since a dataset version",
  description:
    "Events of the versions after `since`, in order, filtered by types, countries and operators (a merged near-duplicate's old operator id also matches its surviving operator's events); ir21.catalog.updated is never filtered out. An unknown version, or one older than the change log's retention window (CATALOG_CHANGES_RETENTION_DAYS, default 90 days after it was superseded; also since=none once anything was pruned), is a 400 UNKNOWN_DATASET_VERSION: reload the snapshot.",
  access: "credentials",
  input: {
    query: z.object({
      since: z.union([z.literal("none"), z.string().regex(VERSION_PATTERN, "must be a dataset version (meta.dataset_version) or none")]),
      cursor: Cursor.optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
      types: EventTypes.optional(),
      country: commaList(CountryParam, 50).optional(),
      operator: commaList(OperatorIdParam, 50).optional(),
    }),
  },
  output: { full: Output },
  async handle({ env, version, input }) {
    const position = input.cursor ? decode(input.cursor, input.since) : { a: 0, u: version.seq, s: input.since };
    const { items, more } = await queryChanges(env.db, {
      since: input.since,
      afterSeq: position.a,
      untilVersionSeq: position.u,
      limit: input.limit,
      types: input.types,
      countries: input.country,
      operators: input.operator,
    });
    const untilVersion = position.u === version.seq ? version.meta.dataset_version : ((await env.db.selectFrom("dataset_versions").select("version").where("seq", "=", position.u).executeTakeFirst())?.version ?? version.meta.dataset_version);
    const last = items.at(-1);
    return {
      items: items.map((i) => i.event),
      next_cursor: more && last ? encode({ a: last.seq, u: position.u, s: input.since }) : null,
      current_version: untilVersion,
    };
  },
});
