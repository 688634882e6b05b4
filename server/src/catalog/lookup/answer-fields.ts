import { z } from "zod";
import { ImsiLookup, NumberLookup, PublicImsiLookup, PublicNumberLookup } from "../../contract/catalog.ts";
import type { Projection } from "../../data-api/route.ts";
import { AppError } from "../../errors.ts";

/**
 * `fields=` on the lookups (docs/api.md "Lookup fields"): the caller names the answer's fields it
 * wants, and gets those only, in the answer's own order, with only their work done. A selection is
 * resolved against the answer's schema of the caller's projection, so the public projection still
 * decides what an anonymous caller may ask for: a name the full answer lacks is unknown, a name only
 * the full answer has is refused to an anonymous caller, both 400 naming them.
 */

/** One field of a selection: the whole value (`sub` null), or only the named fields of the object (or of each object of the array) it holds. */
export interface SelectedField {
  key: string;
  /** `"key":`, serialised once. */
  head: string;
  sub: readonly SelectedField[] | null;
}

/** The number's own work a selection needs done (what `findNumber` may skip: docs/api.md "Lookup fields" has their costs). */
export interface OwnNeeds {
  formats: boolean;
  location: boolean;
  time_zones: boolean;
  validation_reason: boolean;
}

/** Everything of the number's own work: the answer without `fields=`. */
export const ALL_OWN_NEEDS: OwnNeeds = { formats: true, location: true, time_zones: true, validation_reason: true };

export interface FieldSelection {
  /** In the answer schema's order. */
  fields: readonly SelectedField[];
  needs: OwnNeeds;
}

export type LookupKind = "number" | "imsi";

const ANSWER_SCHEMAS: Record<LookupKind, Record<Projection, z.ZodObject>> = {
  number: { full: NumberLookup, public: PublicNumberLookup },
  imsi: { full: ImsiLookup, public: PublicImsiLookup },
};

/** The object schema a field's value holds (through nullable, optional and arrays), or null for a leaf. */
function objectOf(schema: z.ZodType): z.ZodObject | null {
  let inner: z.ZodType = schema;
  for (;;) {
    if (inner instanceof z.ZodObject) return inner;
    if (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
    else if (inner instanceof z.ZodArray) inner = inner.element as z.ZodType;
    else return null;
  }
}

/** Asked paths as a tree: `true` for a whole field (which wins over any of its sub-fields). */
type Asked = Map<string, true | Asked>;

function askedOf(text: string): Asked {
  const tree: Asked = new Map();
  for (const item of text.split(",")) {
    const path = item.trim().split(".");
    let node = tree;
    for (let i = 0; i < path.length; i++) {
      const key = path[i]!;
      const there = node.get(key);
      if (there === true) break;
      if (i === path.length - 1) node.set(key, true);
      else {
        let next = there;
        if (next === undefined) node.set(key, (next = new Map()));
        node = next;
      }
    }
  }
  return tree;
}

/** The fields of `asked` the schema has, in its order; the dotted names of those it lacks go to `missing`. */
function resolve(schema: z.ZodObject, asked: Asked, prefix: string, missing: string[]): SelectedField[] {
  const shape = schema.shape as Record<string, z.ZodType>;
  const fields: SelectedField[] = [];
  for (const key of Object.keys(shape)) {
    const wanted = asked.get(key);
    if (wanted === undefined) continue;
    const head = `${JSON.stringify(key)}:`;
    if (wanted === true) {
      fields.push({ key, head, sub: null });
      continue;
    }
    const inner = objectOf(shape[key]!);
    if (inner === null) missing.push(...namesOf(wanted, `${prefix}${key}.`));
    else fields.push({ key, head, sub: resolve(inner, wanted, `${prefix}${key}.`, missing) });
  }
  for (const [key, wanted] of asked) if (!Object.hasOwn(shape, key)) missing.push(...(wanted === true ? [`${prefix}${key}`] : namesOf(wanted, `${prefix}${key}.`)));
  return fields;
}

function namesOf(asked: Asked, prefix: string): string[] {
  return [...asked].flatMap(([key, wanted]) => (wanted === true ? [`${prefix}${key}`] : namesOf(wanted, `${prefix}${key}.`)));
}

/** Resolves `fields=` text (already through the contract's LookupFields syntax) for a lookup kind and projection; 400 naming the fields it cannot answer. */
function selectionOf(kind: LookupKind, projection: Projection, text: string): FieldSelection {
  const asked = askedOf(text);
  const unknown: string[] = [];
  resolve(ANSWER_SCHEMAS[kind].full, asked, "", unknown);
  if (unknown.length > 0) {
    throw new AppError("INVALID_REQUEST", `fields: ${unknown.join(", ")}: not ${unknown.length === 1 ? "a field" : "fields"} of ${kind === "imsi" ? "an IMSI's" : "a number's"} answer (docs/api.md "Lookup fields")`);
  }
  const refused: string[] = [];
  const fields = resolve(ANSWER_SCHEMAS[kind][projection], asked, "", refused);
  if (refused.length > 0) {
    throw new AppError("INVALID_REQUEST", `fields: ${refused.join(", ")}: not in the public projection; send an API key (X-API-Key) to ask for ${refused.length === 1 ? "it" : "them"}`);
  }
  const has = (key: string) => fields.some((field) => field.key === key);
  return { fields, needs: { formats: has("formats"), location: has("location"), time_zones: has("time_zones"), validation_reason: has("validation_reason") } };
}

/**
 * Resolved selections by kind, projection and text: a caller sends the same `fields=` on every
 * request, so each is resolved once. Bounded (a caller varying the text only refills it). Keyed by
 * the text within a map per kind and projection, so a request builds no key string.
 */
const resolved: Record<LookupKind, Record<Projection, Map<string, FieldSelection>>> = {
  number: { full: new Map(), public: new Map() },
  imsi: { full: new Map(), public: new Map() },
};
const RESOLVED_MAX = 128;

/** The selection `fields=` names, for a lookup kind and the caller's projection (cached); 400 for names the answer lacks or the projection refuses. */
export function lookupFields(kind: LookupKind, projection: Projection, text: string): FieldSelection {
  const cache = resolved[kind][projection];
  let selection = cache.get(text);
  if (selection === undefined) {
    selection = selectionOf(kind, projection, text);
    if (cache.size >= RESOLVED_MAX) cache.clear();
    cache.set(text, selection);
  }
  return selection;
}

/** The selected fields of an answer's value (each element of an array; null stays null), in the selection's order. */
export function project(value: unknown, fields: readonly SelectedField[]): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => project(item, fields));
  const out: Record<string, unknown> = {};
  for (const { key, sub } of fields) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner !== undefined) out[key] = sub === null ? inner : project(inner, sub);
  }
  return out;
}
