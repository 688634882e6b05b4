import type { Kysely } from "kysely";
import { capabilities, changedFields, networks, numberRanges, operators, type EntityKind } from "../../catalog/model/entities.ts";
import { demoDataset } from "../../catalog/import/importers/demo.ts";
import { survivingOperatorId } from "../../catalog/operators/lineage.ts";
import { currentVersion } from "../../catalog/model/versions.ts";
import { toIso } from "../../contract/common.ts";
import { CATALOG_UPDATED, type EventPayload, type EventType } from "../../contract/events.ts";
import type { Db } from "../../db/db.ts";
import { newId } from "../../ids.ts";

/**
 * Test events of a chosen type (docs/webhooks.md "Test events"): `test: true` and a `data` of the same
 * shape as a real event of that type (docs/catalog.md "Events"), built from a record of the current
 * catalogue (within the target's country and operator filters when it has any), or from the demo
 * dataset's records before the first import. The change an `*.updated` event describes is made up; the
 * record it starts from is real, so a receiver's parsing code sees what it will see in production.
 */

type Kind = EntityKind<Record<string, unknown>>;

const KIND_OF: Record<string, Kind> = {
  operator: operators as unknown as Kind,
  network: networks as unknown as Kind,
  number_range: numberRanges as unknown as Kind,
  capability: capabilities as unknown as Kind,
};

const DEMO_RECORDS: Record<string, () => Record<string, unknown>[]> = {
  operators: () => demoDataset().operators,
  networks: () => demoDataset().networks,
  number_ranges: () => demoDataset().numberRanges,
  capabilities: () => demoDataset().capabilities,
};

export interface SampleScope {
  /** The target's country filter (first value), if any. */
  country?: string;
  /** The target's operator filter (first value), if any. */
  operator?: string;
}

/**
 * Where the target's filters point: the first country and operator it selects; a merged duplicate's
 * id points at its survivor, the record whose events the filter receives (docs/webhooks.md "Merged
 * operator ids").
 */
export function scopeOf(filters: { countries: string[]; operators: string[] }): SampleScope {
  const operator = filters.operators[0];
  return { country: filters.countries[0], operator: operator === undefined ? undefined : survivingOperatorId(operator) };
}

const matchesScope = (kind: Kind, record: Record<string, unknown>, scope: SampleScope) =>
  (!scope.country || record.country_iso2 === scope.country) && (!scope.operator || (kind === KIND_OF.operator ? record.id : record.operator_id) === scope.operator);

/** A record of `kind` in the current catalogue within `scope` (else any), else a demo record. */
async function sampleRecord(db: Db, kind: Kind, seq: number, scope: SampleScope): Promise<Record<string, unknown>> {
  if (seq > 0) {
    const raw = db as unknown as Kysely<any>;
    for (const narrow of [true, false]) {
      let query = raw.selectFrom(kind.table).selectAll().where("valid_from", "<=", seq).where("valid_to", ">", seq);
      if (narrow && scope.country) query = query.where("country_iso2", "=", scope.country);
      if (narrow && scope.operator) query = query.where(kind === KIND_OF.operator ? "id" : "operator_id", "=", scope.operator);
      const row = await query.orderBy("id").limit(1).executeTakeFirst();
      if (row) return kind.fromRow(row as never) as Record<string, unknown>;
      if (!scope.country && !scope.operator) break;
    }
  }
  const demo = DEMO_RECORDS[kind.name]!();
  const record = demo.find((r) => matchesScope(kind, r, scope)) ?? demo[0]!;
  return { ...record, dataset_version: "none" };
}

/** The record as it might have been before: one field changed in a way that fits the kind. */
function earlierVersionOf(kind: Kind, after: Record<string, unknown>, previousVersion: string): Record<string, unknown> {
  const before: Record<string, unknown> = { ...after, dataset_version: previousVersion };
  switch (kind.name) {
    case "operators":
      before.brand = after.brand === null ? after.name : null;
      break;
    case "networks": {
      const technologies = (after.technologies as string[]) ?? [];
      before.technologies = technologies.length > 1 ? technologies.slice(0, -1) : ["GSM"];
      if (JSON.stringify(before.technologies) === JSON.stringify(technologies)) before.technologies = [];
      break;
    }
    case "number_ranges":
      before.range_holder = after.range_holder === null ? "Unknown holder" : null;
      break;
    case "capabilities":
      before.value = after.value === false ? true : false;
      break;
  }
  return before;
}

/** `data` for a record event of `type`, in the shape the import writes (catalog/import.ts). */
function recordData(kind: Kind, type: EventType, after: Record<string, unknown>, previousVersion: string): Record<string, unknown> {
  const action = type.split(".").at(-1)!;
  if (kind.name === "capabilities") {
    const before = earlierVersionOf(kind, after, previousVersion);
    return { change: "updated", before, after, changed_fields: changedFields(kind, before, after) };
  }
  if (action === "added") return { after };
  if (action === "removed") return { before: { ...after, dataset_version: previousVersion } };
  const before = earlierVersionOf(kind, after, previousVersion);
  return { before, after, changed_fields: changedFields(kind, before, after) };
}

/**
 * A test event of `type` for a target with these filters: realistic data, the current dataset
 * version, a fresh event id.
 * @example
 * const event = await sampleEvent(db, "ir21.operator.updated", { country: "CN" }, Date.now());
 * // event.data: { before, after, changed_fields: ["brand"] }, event.test: true
 */
export async function sampleEvent(db: Db, type: EventType, scope: SampleScope, now: number): Promise<EventPayload> {
  const version = await currentVersion(db);
  const datasetVersion = version?.version ?? "none";
  const previousVersion = version?.previousVersion ?? "none";
  const base = {
    id: newId("evt", now),
    type,
    occurred_at: toIso(now),
    effective_at: null,
    dataset_version: datasetVersion,
    previous_version: previousVersion,
    test: true,
  };
  if (type === CATALOG_UPDATED) {
    const zero = { added: 0, removed: 0, updated: 0 };
    return {
      ...base,
      country_iso2: "",
      operator_id: "",
      data: {
        reason: "manual_reset",
        snapshot_url: "/v1/snapshot",
        source_mode: version?.sourceMode ?? "demo",
        changes: { countries: zero, operators: zero, networks: zero, number_ranges: zero, capabilities: zero },
      },
    };
  }
  const kind = KIND_OF[type.split(".")[1]!]!;
  const record = await sampleRecord(db, kind, version?.seq ?? 0, scope);
  const scoped = kind.scope(record);
  return { ...base, country_iso2: scoped.country_iso2 ?? "", operator_id: scoped.operator_id ?? "", data: recordData(kind, type, record, previousVersion) };
}
