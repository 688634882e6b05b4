import { parsePhoneNumberFromString, validatePhoneNumberLength, type PhoneNumber, type PhoneNumberType } from "libphonenumber-js/max";
import type { NumberRange } from "../../contract/catalog.ts";

/**
 * What kind of numbers a range holds, in libphonenumber's terms (docs/catalog.md "Range kinds"):
 * libphonenumber's number type lower-cased, except FIXED_LINE, which keeps the catalogue's older
 * name `fixed`. `other` is a range no valid number falls in under the validity metadata shipped.
 */
export type RangeKind = NumberRange["kind"];

export function kindOfType(type: PhoneNumberType | undefined): RangeKind {
  if (!type) return "other";
  if (type === "FIXED_LINE") return "fixed";
  return typeName(type) as RangeKind;
}

/** libphonenumber's type names lower-cased, each once: every lookup answers one (`number_type`). */
const typeNames = new Map<PhoneNumberType, string>();

/** A number type as answers name it: libphonenumber's, lower-cased (`MOBILE` → `mobile`). */
export function typeName(type: PhoneNumberType): string {
  let name = typeNames.get(type);
  if (name === undefined) typeNames.set(type, (name = type.toLowerCase()));
  return name;
}

/**
 * The types libphonenumber's PhoneNumberToCarrierMapper names a carrier for
 * (getNameForValidNumber: MOBILE, FIXED_LINE_OR_MOBILE, PAGER). A lookup names a range holder and an
 * operator only for a valid number of one of these types: a toll-free or voicemail number inside a
 * mobile operator's prefix is not that operator's subscriber.
 */
export const CARRIER_KINDS: ReadonlySet<RangeKind> = new Set(["mobile", "fixed_line_or_mobile", "pager"]);

const FILLS = [..."0123456789"].map((d) => d.repeat(17)).concat(["12345678901234567", "98765432109876543"]);

/**
 * Finds valid example numbers for prefixes of one calling code. Consecutive prefixes of a carrier file
 * share their number plan, so the length and fill that worked last are tried first: about 1.2 parses
 * a prefix instead of 20 (the whole carrier set of 28,884 prefixes in under 2 s).
 */
export class ExampleFinder {
  #last: { length: number; fill: string } | null = null;

  constructor(private readonly callingCode: string) {}

  /** A valid number (with a type) starting with the national prefix, or null if none is found. */
  find(nationalPrefix: string): PhoneNumber | null {
    const cc = this.callingCode;
    const attempt = (length: number, fill: string): PhoneNumber | null => {
      if (length <= nationalPrefix.length) return null;
      const parsed = parsePhoneNumberFromString(`+${cc}${(nationalPrefix + fill).slice(0, length)}`);
      return parsed?.getType() ? parsed : null;
    };
    if (this.#last) {
      const hit = attempt(this.#last.length, this.#last.fill);
      if (hit) return hit;
    }
    for (let length = Math.max(nationalPrefix.length + 1, 4); length <= 17 - cc.length; length++) {
      // Skip lengths the country never uses (a cheap check) before trying fills at that length.
      const verdict = validatePhoneNumberLength(`+${cc}${(nationalPrefix + FILLS[0]!).slice(0, length)}`);
      if (verdict === "TOO_LONG") break;
      if (verdict) continue;
      for (const fill of FILLS) {
        const hit = attempt(length, fill);
        if (hit) {
          this.#last = { length, fill };
          return hit;
        }
      }
    }
    return null;
  }

  /**
   * The region of a prefix no valid number falls in: libphonenumber still picks one by leading digits
   * (+1 758 … Saint Lucia) for a number of possible length; undefined when even that is not known.
   */
  region(nationalPrefix: string): string | undefined {
    for (let length = Math.max(nationalPrefix.length + 1, 4); length <= 17 - this.callingCode.length; length++) {
      const country = parsePhoneNumberFromString(`+${this.callingCode}${(nationalPrefix + FILLS[0]!).slice(0, length)}`)?.country;
      if (country) return country;
    }
    return undefined;
  }
}
