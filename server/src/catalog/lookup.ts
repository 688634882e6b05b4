import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import { LOOKUP_NOTE, type ImsiLookup, type NumberLookup } from "../contract/catalog.ts";
import { AppError } from "../errors.ts";
import type { LookupIndex } from "./lookup-index.ts";

/** Network ids are "MCC-MNC"; the index keys networks by the PLMN digits. */
const networkById = (index: LookupIndex, id: string) => index.networksByPlmn.get(id.replace("-", ""));

/**
 * Looks a phone number up: normalise it to E.164 with libphonenumber-js (E.164, or national with a
 * country), then the longest matching prefix in the index. A number with no matching range is an
 * answer too (range and operator null), not an error; a string that is no phone number is.
 */
export function lookupNumber(index: LookupIndex, number: string, country?: string): NumberLookup {
  const parsed = parsePhoneNumberFromString(number, country ? { defaultCountry: country as CountryCode } : undefined);
  if (!parsed) {
    throw new AppError(
      "INVALID_REQUEST",
      country ? "number: not a phone number" : "number: not a phone number in E.164 (+8613912345678); give country for a national number",
    );
  }
  const digits = parsed.number.slice(1);
  const hit = index.e164.longest(digits);
  const range = hit?.value ?? null;
  const operator = range?.operator_id ? (index.operators.get(range.operator_id) ?? null) : null;
  const networks = operator ? (index.networksByOperator.get(operator.id) ?? []) : [];
  const network = range?.network_id ? (networkById(index, range.network_id) ?? null) : networks.length === 1 ? networks[0]! : null;
  const type = parsed.getType();
  return {
    number: parsed.number,
    country_iso2: range?.country_iso2 ?? parsed.country ?? null,
    // With type metadata (the max set) "valid" is "has a type"; isValid() would repeat that matching.
    valid: type !== undefined || parsed.isValid(),
    number_type: type ? type.toLowerCase() : null,
    range_holder: range?.range_holder ?? null,
    operator,
    range,
    network,
    networks,
    match: hit ? { prefix: hit.prefix, length: hit.prefix.length } : null,
    note: LOOKUP_NOTE,
  };
}

/**
 * Looks an IMSI up: an IR.21 IMSI sub-range first, then the network by MCC + 3-digit MNC, then
 * MCC + 2-digit MNC (the MNC length is not in the IMSI itself).
 */
export function lookupImsi(index: LookupIndex, imsi: string): ImsiLookup {
  if (!/^\d{6,15}$/.test(imsi)) throw new AppError("INVALID_REQUEST", "imsi: must be 6 to 15 digits (MCC + MNC + MSIN)");
  const range = index.imsi.longest(imsi)?.value ?? null;
  const three = index.networksByPlmn.get(imsi.slice(0, 6));
  const two = index.networksByPlmn.get(imsi.slice(0, 5));
  const byRange = range?.network_id ? networkById(index, range.network_id) : undefined;
  const network = byRange ?? three ?? two ?? null;
  const operatorId = network?.operator_id ?? range?.operator_id ?? null;
  return {
    imsi,
    mcc: network?.mcc ?? range?.mcc ?? null,
    mnc: network?.mnc ?? range?.mnc ?? null,
    country_iso2: network?.country_iso2 ?? range?.country_iso2 ?? null,
    network,
    operator: operatorId ? (index.operators.get(operatorId) ?? null) : null,
    range,
    ambiguous: !byRange && Boolean(three && two),
  };
}
