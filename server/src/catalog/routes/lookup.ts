/**
 * GET /v1/lookup?number=+8613912345678          public projection for anonymous callers
 * GET /v1/lookup?number=13912345678&country=CN
 * GET /v1/lookup?imsi=460001234567890
 * GET /v1/lookup?number=+8613912345678&fields=number,valid,number_type,range_holder,operator.id
 *
 * A phone number (E.164, or national with `country`) by longest-prefix match over the number ranges:
 * country, range holder, operator, network, range and kind. Or an IMSI by MCC + MNC (and IR.21 IMSI
 * sub-ranges). Exactly one of `number` and `imsi`. A number no range matches is an answer with null
 * range and operator, not an error. `range_holder` is the original holder of the range, not the
 * current carrier (numbers are ported). `fields=` narrows the answer to the fields named, and only
 * their work is done (docs/api.md "Lookup fields").
 *
 * 200 {code: 0, data: NumberLookup | PublicNumberLookup | ImsiLookup | PublicImsiLookup, meta}
 * 400 INVALID_REQUEST (neither or both, not a phone number, not an IMSI, a field the answer or the
 *     caller's projection does not have)
 */
import { z } from "zod";
import { ImsiLookup, LOOKUP_FIELDS_SYNTAX, LookupFields, NumberLookup, PublicImsiLookup, PublicNumberLookup } from "../../contract/catalog.ts";
import type { Projection } from "../../data-api/route.ts";
import type { Utf8Builder } from "../../utf8-builder.ts";
import { lookupFields, project, type FieldSelection } from "../lookup/answer-fields.ts";
import type { LookupIndex } from "../lookup/lookup-index.ts";
import { findNumber, lookupImsi, lookupNumber } from "../lookup/lookup.ts";
import { CountryParam } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const LookupQuery = z
  .object({
    number: z.string().trim().min(3).max(32).optional(),
    country: CountryParam.optional(),
    imsi: z.string().trim().regex(/^\d{6,15}$/, "must be 6 to 15 digits (MCC + MNC + MSIN)").optional(),
    fields: LookupFields.optional().describe(
      "Answer only these fields: a comma-separated list of the answer's top-level fields and dotted sub-fields (number,valid,number_type,range_holder,operator.id,network.mcc). Only their work is done; the answer keeps its own field order. A field the answer does not have, or (anonymous callers) one outside the public projection, is a 400 naming it. Absent: the whole answer. Fields and their costs: docs/api.md \"Lookup fields\".",
    ),
  })
  .refine((q) => (q.number === undefined) !== (q.imsi === undefined), { message: "give exactly one of number and imsi", path: ["number"] });

export const lookupRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/lookup",
  summary: "Look up a phone number or an IMSI",
  description:
    "Longest-prefix match of a phone number (E.164, or national with country) over the number ranges, or an IMSI by MCC+MNC. range_holder is the original range holder; ported numbers are not reflected.",
  access: "public",
  input: { query: LookupQuery },
  // The route's input type also carries the (empty) path parameters' `Record<string, never>`.
  plainQuery: (raw) => plainLookupQuery(raw) as never,
  output: { full: z.union([NumberLookup, ImsiLookup]), public: z.union([PublicNumberLookup, PublicImsiLookup]) },
  async handle({ env, input, version }) {
    const index = await env.lookupIndexes.at(version.seq);
    return input.imsi !== undefined ? lookupImsi(index, input.imsi) : lookupNumber(index, input.number!, input.country);
  },
  // The reference for `fields=` (lookup-fields.test.ts): the whole answer, then the fields asked.
  narrow(input, projection, data) {
    return input.fields === undefined ? data : project(data, lookupFields(input.imsi !== undefined ? "imsi" : "number", projection, input.fields).fields);
  },
  // A number's answer spliced from its range's prebuilt fragment and its own fields (lookup-answers.ts),
  // or with `fields=` from the fields asked, only those made; an IMSI's answer the generic way.
  // Synchronous once the version's index is built (data-api/answer.ts `serialisedAnswer`).
  serialised({ env, input, version }, projection, schema, out) {
    // The selection first: a field the caller may not ask for is refused before any work.
    const selection = input.fields === undefined ? null : lookupFields(input.imsi !== undefined ? "imsi" : "number", projection, input.fields);
    const index = env.lookupIndexes.at(version.seq);
    if (index instanceof Promise) return index.then((built) => writeLookup(built, input, projection, schema, selection, out));
    writeLookup(index, input, projection, schema, selection, out);
  },
});

/** The answer's `data` of a lookup from the version's index, into `out` (the route's `serialised`). */
function writeLookup(index: LookupIndex, input: z.infer<typeof LookupQuery>, projection: Projection, schema: z.ZodType, selection: FieldSelection | null, out: Utf8Builder): void {
  if (input.imsi !== undefined) {
    const answer = schema.parse(lookupImsi(index, input.imsi));
    out.text(JSON.stringify(selection === null ? answer : project(answer, selection.fields)));
  } else if (selection === null) index.answers.write(findNumber(index, input.number!, input.country), projection, out);
  else index.answers.writeSelected(findNumber(index, input.number!, input.country, selection.needs), projection, selection, out);
}

type LookupInput = z.infer<typeof LookupQuery>;

/**
 * `fields=` texts that passed the contract's syntax: a caller sends the same one on every request, and
 * the pattern's backtracking costs more than a set lookup (bounded: a caller varying it only refills it).
 */
const wellFormed = new Set<string>();
function wellFormedFields(text: string): boolean {
  if (wellFormed.has(text)) return true;
  if (!LOOKUP_FIELDS_SYNTAX.test(text)) return false;
  if (wellFormed.size >= 128) wellFormed.clear();
  wellFormed.add(text);
  return true;
}

/** A hex digit's value, -1 for anything else (NaN past the end included). */
function hexValue(code: number): number {
  return code >= 48 && code <= 57 ? code - 48 : code >= 65 && code <= 70 ? code - 55 : code >= 97 && code <= 102 ? code - 87 : -1;
}

/**
 * A query value percent-decoded as `decodeURIComponent` does it: escapes of ASCII (the `%2B` of an
 * E.164 number) by hand, anything else (a byte above 0x7F, a bad escape) by `decodeURIComponent`
 * itself, which decodes UTF-8 or throws. The native call's copies and allocations were ~1.2k
 * instructions a lookup (docs/performance.md "Lookup, eighth pass").
 */
export function decodeEscapes(value: string): string {
  let decoded = "";
  let from = 0;
  for (let at = value.indexOf("%"); at !== -1; at = value.indexOf("%", from)) {
    const high = hexValue(value.charCodeAt(at + 1));
    const low = hexValue(value.charCodeAt(at + 2));
    if (high < 0 || low < 0 || high > 7) return decodeURIComponent(value);
    decoded += value.slice(from, at) + String.fromCharCode(high * 16 + low);
    from = at + 3;
  }
  return decoded + value.slice(from);
}

const COUNTRY = /^[A-Za-z]{2}$/;
const IMSI = /^\d{6,15}$/;

/**
 * {@link LookupQuery} read by hand from the raw query, for the plain queries callers send
 * (`number=%2B8613912345678&fields=number,valid`): each name once, `name=value` pairs, values
 * percent-decoded, and every value within the schema. Anything else is undefined and goes to the
 * schema (the route's `plainQuery`, data-api/route.ts); `lookup-query.test.ts` compares the two.
 */
export function plainLookupQuery(raw: string): LookupInput | undefined {
  // A `+` is a space in a query: h3's reading of it is left to h3.
  if (raw.length === 0 || raw.includes("+")) return undefined;
  let number: string | undefined;
  let country: string | undefined;
  let imsi: string | undefined;
  let fields: string | undefined;
  for (let at = 0; at <= raw.length; ) {
    let end = raw.indexOf("&", at);
    if (end === -1) end = raw.length;
    const equals = raw.indexOf("=", at);
    if (equals === -1 || equals > end) return undefined;
    let value = raw.slice(equals + 1, end);
    if (value.includes("=")) return undefined;
    if (value.includes("%")) {
      try {
        value = decodeEscapes(value);
      } catch {
        return undefined;
      }
    }
    switch (raw.slice(at, equals)) {
      case "number":
        if (number !== undefined) return undefined;
        number = value.trim();
        if (number.length < 3 || number.length > 32) return undefined;
        break;
      case "country":
        if (country !== undefined || !COUNTRY.test(value)) return undefined;
        country = value.toUpperCase();
        break;
      case "imsi":
        if (imsi !== undefined) return undefined;
        imsi = value.trim();
        if (!IMSI.test(imsi)) return undefined;
        break;
      case "fields":
        if (fields !== undefined || value.length > 1000 || !wellFormedFields(value)) return undefined;
        fields = value;
        break;
      default:
        return undefined;
    }
    at = end + 1;
  }
  if ((number === undefined) === (imsi === undefined)) return undefined;
  // The schema's output: only the names given, in the schema's order.
  const input: LookupInput = {};
  if (number !== undefined) input.number = number;
  if (country !== undefined) input.country = country;
  if (imsi !== undefined) input.imsi = imsi;
  if (fields !== undefined) input.fields = fields;
  return input;
}
