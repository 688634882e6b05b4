import { getCountryCallingCode, parsePhoneNumberFromString, validatePhoneNumberLength, type CountryCode, type PhoneNumber } from "libphonenumber-js/max";
// Not `with { type: "json" }`: the exports map sends `import` to metadata.max.json.js, an ES module that
// Node refuses to load as JSON (tsx let it pass in development; the bundle run by an installed package failed).
import metadata from "libphonenumber-js/metadata.max.json";
import { LOOKUP_NOTE, type ImsiLookup, type NumberLookup, type NumberRange, type ValidationReason } from "../../contract/catalog.ts";
import { AppError } from "../../errors.ts";
import { INTERNATIONAL } from "../model/records.ts";
import { networkById, noRangePart, rangePartOf, type FoundNumber, type NumberPart } from "./answer-parts.ts";
import type { LookupIndex } from "./lookup-index.ts";
import { ALL_OWN_NEEDS, type OwnNeeds } from "./answer-fields.ts";
import { CARRIER_KINDS, kindOfType, typeName } from "../model/number-kind.ts";

/** Digits with the usual separators, optionally after a +: what counts as an attempt at a phone number. */
const NUMBER_LIKE = /^\+?[\d\s().\-/]*\d[\d\s().\-/]*$/;

/**
 * Looks a phone number up (docs/api.md "Lookup"): normalise it with libphonenumber-js (E.164, or
 * national with a country), then the longest matching prefix in the index.
 *
 * Carrier-mapper semantics (libphonenumber's PhoneNumberToCarrierMapper): a range holder and an
 * operator are named only for a valid number of a type a carrier is named for (mobile,
 * fixed_line_or_mobile, pager); otherwise they are null and `range_holder_reason` says why. Number-like
 * input that is no valid number is an answer too (`valid: false`, `validation_reason` from libphonenumber);
 * only input that is no phone number at all is an error.
 */
export function lookupNumber(index: LookupIndex, number: string, country?: string): NumberLookup {
  const found = findNumber(index, number, country);
  return { ...found.own, ...(found.range ? rangePartOf(index, found.range, found.own.country_iso2) : noRangePart(found.reason, found.source)) };
}

/**
 * The number's own part of its answer and the range it matched: {@link lookupNumber} without the range
 * part. `needs` says which of the number's own costly fields to make (a `fields=` selection, docs/api.md
 * "Lookup fields"): those not needed are left empty (formats and location null, time_zones [],
 * validation_reason null) and must not be answered.
 */
export function findNumber(index: LookupIndex, number: string, country?: string, needs: OwnNeeds = ALL_OWN_NEEDS): FoundNumber {
  const options = country ? { defaultCountry: country as CountryCode } : undefined;
  const trimmed = number.trim();
  const parsed = NUMBER_LIKE.test(trimmed) ? parsePhoneNumberFromString(trimmed, options) : undefined;
  if (!parsed) {
    const reason = NUMBER_LIKE.test(trimmed) ? validatePhoneNumberLength(trimmed, options) : "NOT_A_NUMBER";
    // A national number without a country is a request the caller must complete, not a verdict.
    if (reason === undefined || reason === "NOT_A_NUMBER" || (reason === "INVALID_COUNTRY" && !trimmed.startsWith("+"))) {
      throw new AppError(
        "INVALID_REQUEST",
        country ? "number: not a phone number" : "number: not a phone number in E.164 (+8613912345678); give country for a national number",
      );
    }
    const digits = trimmed.replace(/\D/g, "");
    return {
      own: unanswered(`+${trimmed.startsWith("+") || !country ? "" : getCountryCallingCode(country as CountryCode)}${digits}`, null, reasonOf(reason)),
      range: null,
      reason: "invalid_number",
      source: null,
    };
  }
  const type = parsed.getType();
  // With type metadata (the max set) "valid" is "has a type"; isValid() would repeat that matching.
  const valid = type !== undefined || parsed.isValid();
  const kind = kindOfType(type);
  const countryIso2 = countryOfNumber(parsed.country, parsed.countryCallingCode as string);
  const own: NumberPart = {
    number: parsed.number,
    country_iso2: countryIso2,
    valid,
    validation_reason: valid || !needs.validation_reason ? null : reasonOf(validatePhoneNumberLength(parsed.number)),
    number_type: type ? typeName(type) : null,
    formats: needs.formats ? formatsOf(parsed) : null,
    location: needs.location ? index.geo.locationOf(parsed.countryCallingCode as string, parsed.nationalNumber as string, type, valid) : null,
    time_zones: needs.time_zones ? index.geo.timeZonesOf(parsed.number.slice(1), parsed.countryCallingCode as string, type, valid) : [],
    match: null,
    note: LOOKUP_NOTE,
    ported: null,
  };
  if (!valid) return { own, range: null, reason: "invalid_number", source: null };
  const digits = parsed.number.slice(1);
  const hit = index.e164.longest(digits);
  // A national register's block names its holder whatever the number's type (the register attests
  // every number of the block); other sources follow libphonenumber's carrier mapper: a holder only
  // for the types it names one for.
  const fromRegister = hit !== null && hit.value.status !== null;
  if (!fromRegister && !CARRIER_KINDS.has(kind)) return { own, range: null, reason: "type_not_served", source: null };
  if (!hit) {
    // Inside a register's coverage, no block is the register's answer: not assigned (docs/api.md "Lookup").
    const covering = index.coverage.longest(digits)?.value;
    return covering ? { own, range: null, reason: "not_assigned", source: { ...covering, status: null } } : { own, range: null, reason: "no_range", source: null };
  }
  const range = hit.value;
  own.country_iso2 = countryIso2 ?? range.country_iso2;
  own.match = { prefix: hit.prefix, length: hit.prefix.length };
  return { own, range, reason: null };
}

/** The number written out; formatting is a third of a number's own work (docs/performance.md "Batch lookup"), so the international form is made once. */
function formatsOf(parsed: PhoneNumber): NonNullable<NumberPart["formats"]> {
  const international = parsed.formatInternational();
  return {
    e164: parsed.number,
    national: parsed.formatNational(),
    international,
    // libphonenumber's RFC3966 format: the international form with hyphens (libphonenumber-js's
    // getURI() leaves the digits unseparated).
    rfc3966: `tel:${international.replace(/\s+/g, "-")}`,
  };
}

/** libphonenumber's length verdict as a validation reason; a possible length that is still invalid is INVALID_NUMBER. */
const reasonOf = (verdict: string | undefined): ValidationReason =>
  verdict === "TOO_SHORT" || verdict === "TOO_LONG" || verdict === "INVALID_LENGTH" || verdict === "INVALID_COUNTRY" ? verdict : "INVALID_NUMBER";

const phoneMetadata = metadata as unknown as { country_calling_codes: Record<string, string[]>; nonGeographic?: Record<string, unknown> };

/**
 * The country of a parsed number: libphonenumber's region; ZZ for the calling codes it files under no
 * region (+800, +808, +870, +878, +881 …); for an invalid number of a shared code, whose region
 * libphonenumber cannot tell, the code's main region (+44 → GB).
 */
function countryOfNumber(region: string | undefined, callingCode: string): string | null {
  if (region) return region;
  if (phoneMetadata.nonGeographic?.[callingCode]) return INTERNATIONAL;
  return phoneMetadata.country_calling_codes[callingCode]?.[0] ?? null;
}

/** The number part of the answer to number-like input libphonenumber cannot even parse (too short, unknown calling code). */
function unanswered(e164: string, countryIso2: string | null, reason: ValidationReason): NumberPart {
  return {
    number: e164,
    country_iso2: countryIso2,
    valid: false,
    validation_reason: reason,
    number_type: null,
    formats: null,
    location: null,
    time_zones: [],
    match: null,
    note: LOOKUP_NOTE,
    ported: null,
  };
}

/**
 * Looks an IMSI up: an IMSI range first (an IR.21 sub-range, an IMSI block of a shared MNC), then the
 * network by MCC + 3-digit MNC, then MCC + 2-digit MNC (the MNC length is not in the IMSI itself);
 * with none of them, the MCC alone gives `mcc` and `country_iso2` (its home country).
 */
export function lookupImsi(index: LookupIndex, imsi: string): ImsiLookup {
  if (!/^\d{6,15}$/.test(imsi)) throw new AppError("INVALID_REQUEST", "imsi: must be 6 to 15 digits (MCC + MNC + MSIN)");
  const range = index.imsi.longest(imsi)?.value ?? null;
  const three = index.networksByPlmn.get(imsi.slice(0, 6));
  const two = index.networksByPlmn.get(imsi.slice(0, 5));
  const byRange = range?.network_id ? networkById(index, range.network_id) : undefined;
  // A range decides the MNC: the IMSI block 208 50 001… is MNC 50's even though 208-500 exists.
  const network = range ? (byRange ?? null) : (three ?? two ?? null);
  // An IMSI block inside a shared MNC (ARCEP's 208 50 144…) is its holder's, not the MNC's operator's.
  const operatorId = range?.operator_id ?? network?.operator_id ?? null;
  // No network or range known: the MCC (the IMSI's first three digits) still names its country.
  const mccCountry = index.mccCountries.get(imsi.slice(0, 3)) ?? null;
  return {
    imsi,
    mcc: range?.mcc ?? network?.mcc ?? (mccCountry ? imsi.slice(0, 3) : null),
    mnc: range?.mnc ?? network?.mnc ?? null,
    country_iso2: range?.country_iso2 ?? network?.country_iso2 ?? mccCountry,
    network,
    operator: operatorId ? (index.operators.get(operatorId) ?? null) : null,
    range,
    ambiguous: !range && Boolean(three && two),
  };
}
