import type { Projection } from "../../data-api/route.ts";
import type { z } from "zod";
import { Utf8Builder } from "../../utf8-builder.ts";
import { NumberLookup, PublicNumberLookup, type NumberRange } from "../../contract/catalog.ts";
import { noRangePart, rangePartOf, RANGE_PART_KEYS, type FoundNumber, type NumberPart, type RangeLookups, type RangePart } from "./answer-parts.ts";
import { project, type FieldSelection } from "./answer-fields.ts";


/** The output schema of a number answer per projection (the /v1/lookup route's, less its IMSI alternative). */
export const NUMBER_ANSWER_SCHEMAS: Record<Projection, z.ZodObject> = { full: NumberLookup, public: PublicNumberLookup };

/** A run of consecutive keys of an answer schema that are all number keys or all range keys. */
interface Segment {
  part: "number" | "range";
  keys: string[];
  /** The schema of just these keys (a pick of the answer's schema: same field schemas, same order). */
  schema: z.ZodObject;
}

function segmentsOf(schema: z.ZodObject): Segment[] {
  const rangeKeys = new Set<string>(RANGE_PART_KEYS);
  const segments: Segment[] = [];
  for (const key of Object.keys(schema.shape)) {
    const part = rangeKeys.has(key) ? "range" : "number";
    const last = segments.at(-1);
    if (last?.part === part) last.keys.push(key);
    else segments.push({ part, keys: [key], schema: schema });
  }
  for (const segment of segments) segment.schema = schema.pick(Object.fromEntries(segment.keys.map((key) => [key, true])) as never);
  return segments;
}

/**
 * A range part for `fields=` answers, in one projection: its values through the projection's schema,
 * and each field's member (`"operator":{…}`) serialised, so a selection of whole range fields is
 * spliced from bytes like the full answer.
 */
interface KeyedRangePart {
  values: Record<string, unknown>;
  members: Map<string, Buffer>;
}

const RANGE_KEYS = new Set<string>(RANGE_PART_KEYS);

/**
 * Whether JSON.stringify would only quote `text`: no quote, backslash, control character or surrogate
 * half (a lone one is escaped; a pair is left to JSON.stringify too). A loop, not a regular expression:
 * the small answer's strings are a dozen characters, and the expression's call cost more than reading
 * them (docs/performance.md "Lookup, tenth pass").
 */
function quoteOnly(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/**
 * `JSON.stringify(value)` of a number's own field, without the call where the text is plain: the
 * small answer's fields are a boolean, nulls and short strings, and the call cost more than their
 * text (docs/performance.md "Lookup, seventh pass"). lookup-fields.test.ts compares the answers with
 * the whole answer's.
 */
export function jsonOf(value: unknown): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string" && quoteOnly(value)) return `"${value}"`;
  return JSON.stringify(value);
}

/** The range fields of an answer schema, with their schemas. */
function rangeSchemaOf(schema: z.ZodObject): z.ZodObject {
  return schema.pick(Object.fromEntries(Object.keys(schema.shape).filter((key) => RANGE_KEYS.has(key)).map((key) => [key, true])) as never);
}

/** `{"a":1,"b":2}` → `"a":1,"b":2`: the members of a serialised object, to splice into another. */
const members = (json: string) => json.slice(1, -1);

/**
 * The serialised number answers of one dataset version (docs/performance.md "Answer fragments").
 *
 * A number's answer is its own fields (number, validity, type, formats, location, time zones, match)
 * plus a part that depends only on the range it matched and the number's country (holder, operator,
 * current operator, range, networks, primary network: {@link rangePartOf}, the function
 * `lookupNumber` uses). That part is 1.5-2 KB of the full projection; here it goes through the
 * projection's output schema and `JSON.stringify` once per range, country and projection, and is kept
 * as UTF-8 bytes; each request only parses and serialises its own fields, then splices the two in the
 * schema's key order into the answer's buffer.
 * The bytes equal `JSON.stringify(schema.parse(lookupNumber(...)))` (lookup-answers.test.ts checks
 * every range of the reference dataset, both projections).
 *
 * Fragments are built lazily, on a range's first answer (~45 µs for both projections), and kept for
 * the version's lifetime: building all of them at load took 1.27 s and 95 MB of heap for the
 * reference dataset's 28,884 ranges, most of which an instance never answers (docs/performance.md).
 * They assume the range part is a function of the version, the range and the number's country only:
 * were it to depend on anything else (the date, the caller), that must join the key.
 */
export class NumberAnswers {
  readonly #segments: Record<Projection, Segment[]> = { full: segmentsOf(NUMBER_ANSWER_SCHEMAS.full), public: segmentsOf(NUMBER_ANSWER_SCHEMAS.public) };
  /** range → country → projection → serialised range segments (UTF-8), in schema order. */
  readonly #byRange = new Map<NumberRange, Map<string | null, Record<Projection, Buffer[]>>>();
  readonly #byReason = new Map<string, Record<Projection, Buffer[]>>();
  /** The same parts for `fields=` answers, by field (built on a range's first such answer). */
  readonly #keyedByRange = new Map<NumberRange, Map<string | null, Record<Projection, KeyedRangePart>>>();
  readonly #keyedByReason = new Map<string, Record<Projection, KeyedRangePart>>();
  readonly #rangeSchemas: Record<Projection, z.ZodObject> = { full: rangeSchemaOf(NUMBER_ANSWER_SCHEMAS.full), public: rangeSchemaOf(NUMBER_ANSWER_SCHEMAS.public) };

  constructor(private readonly index: RangeLookups) {}

  /**
   * Appends the `data` of a number's answer to `out` as JSON, in `projection`, as the route's output
   * schema would give it.
   */
  write(found: FoundNumber, projection: Projection, out: Utf8Builder): void {
    const fragments = this.#fragmentsOf(found)[projection];
    let first = true;
    let range = 0;
    out.text("{");
    for (const segment of this.#segments[projection]) {
      if (segment.part === "range") {
        const fragment = fragments[range++]!;
        if (fragment.length === 0) continue;
        if (!first) out.text(",");
        out.bytes(fragment);
      } else {
        const text = members(JSON.stringify(segment.schema.parse(found.own as NumberPart)));
        if (text === "") continue;
        out.text(first ? text : "," + text);
      }
      first = false;
    }
    out.text("}");
  }

  /**
   * Appends the `data` of a number's answer narrowed to a `fields=` selection (resolved for this
   * projection, answer-fields.ts): the full answer's members, in its order, of the fields asked; a
   * dotted sub-field's object narrowed to what was asked. Equal to `project` of the full answer
   * (lookup-fields.test.ts). The number's own fields are the values `findNumber` made (it made only
   * the ones the selection needs); they are serialised as they are: their schemas only check them.
   */
  writeSelected(found: FoundNumber, projection: Projection, selection: FieldSelection, out: Utf8Builder): void {
    let range: KeyedRangePart | undefined;
    let text = "{";
    let first = true;
    for (const field of selection.fields) {
      if (!first) text += ",";
      first = false;
      if (RANGE_KEYS.has(field.key)) {
        range ??= this.#keyedOf(found)[projection];
        if (field.sub === null) {
          out.text(text).bytes(range.members.get(field.key)!);
          text = "";
          continue;
        }
        text += field.head + JSON.stringify(project(range.values[field.key], field.sub));
      } else {
        const value = (found.own as Record<string, unknown>)[field.key];
        text += field.head + (field.sub === null ? jsonOf(value) : JSON.stringify(project(value, field.sub)));
      }
    }
    out.text(text + "}");
  }

  /** {@link NumberAnswers.write} as a string. */
  json(found: FoundNumber, projection: Projection): string {
    const out = new Utf8Builder();
    this.write(found, projection, out);
    return out.toString();
  }

  /** How many range fragments are built (for the memory figures of docs/performance.md). */
  get builtRanges(): number {
    return this.#byRange.size;
  }

  #fragmentsOf(found: FoundNumber): Record<Projection, Buffer[]> {
    if (found.range === null) {
      // Few distinct: a reason, and for not_assigned the register covering the number.
      const key = found.source ? `${found.reason}\t${found.source.id}\t${found.source.date}` : found.reason;
      let fragments = this.#byReason.get(key);
      if (!fragments) this.#byReason.set(key, (fragments = this.#build(noRangePart(found.reason, found.source))));
      return fragments;
    }
    let byCountry = this.#byRange.get(found.range);
    if (!byCountry) this.#byRange.set(found.range, (byCountry = new Map()));
    const country = found.own.country_iso2;
    let fragments = byCountry.get(country);
    if (!fragments) byCountry.set(country, (fragments = this.fragmentsOf(found.range, country)));
    return fragments;
  }

  #keyedOf(found: FoundNumber): Record<Projection, KeyedRangePart> {
    if (found.range === null) {
      const key = found.source ? `${found.reason}\t${found.source.id}\t${found.source.date}` : found.reason;
      let keyed = this.#keyedByReason.get(key);
      if (!keyed) this.#keyedByReason.set(key, (keyed = this.#buildKeyed(noRangePart(found.reason, found.source))));
      return keyed;
    }
    let byCountry = this.#keyedByRange.get(found.range);
    if (!byCountry) this.#keyedByRange.set(found.range, (byCountry = new Map()));
    const country = found.own.country_iso2;
    let keyed = byCountry.get(country);
    if (!keyed) byCountry.set(country, (keyed = this.#buildKeyed(rangePartOf(this.index, found.range, country))));
    return keyed;
  }

  #buildKeyed(part: RangePart): Record<Projection, KeyedRangePart> {
    const keyed = (projection: Projection): KeyedRangePart => {
      const values = this.#rangeSchemas[projection].parse(part) as Record<string, unknown>;
      const members = new Map<string, Buffer>();
      for (const key in values) if (values[key] !== undefined) members.set(key, Buffer.from(`${JSON.stringify(key)}:${JSON.stringify(values[key])}`));
      return { values, members };
    };
    return { full: keyed("full"), public: keyed("public") };
  }

  /** The serialised range segments (UTF-8) of a range's answers for numbers of `country`, both projections. */
  fragmentsOf(range: NumberRange, country: string | null): Record<Projection, Buffer[]> {
    return this.#build(rangePartOf(this.index, range, country));
  }

  #build(part: RangePart): Record<Projection, Buffer[]> {
    const serialise = (projection: Projection) =>
      this.#segments[projection].filter((s) => s.part === "range").map((s) => Buffer.from(members(JSON.stringify(s.schema.parse(part)))));
    return { full: serialise("full"), public: serialise("public") };
  }
}
