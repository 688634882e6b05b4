import { ExampleFinder, kindOfType } from "../../model/number-kind.ts";
import { INTERNATIONAL, type NumberRangeRecord } from "../../model/records.ts";
import type { CarrierInput } from "./reference-carriers.ts";
import type { ReferenceCountries } from "./reference-countries.ts";
import type { OperatorLinker } from "./reference-operators.ts";

/** The reference dataset's E.164 ranges: one per carrier prefix, its holder linked to an operator when the names agree. */
export interface ReferenceRanges {
  /** In the carrier input's order (calling code, then file order); the dataset sorts them with the IMSI blocks. */
  carrierRanges: NumberRangeRecord[];
  /** `country:holder` of every holder name that matched no operator. */
  unlinkedHolders: Set<string>;
  /** Operator id → its ranges' Chinese holder names (+86, +852), counted: the operator's `name_local`. */
  localNames: Map<string, Map<string, number>>;
}

export function referenceRanges(input: CarrierInput, { countries, regionsOfCallingCode }: ReferenceCountries, linker: OperatorLinker): ReferenceRanges {
  const carrierRanges: NumberRangeRecord[] = [];
  const unlinkedHolders = new Set<string>();
  const localNames = new Map<string, Map<string, number>>();
  for (const cc of input.callingCodes) {
    const english = input.prefixes(cc, "en");
    const chinese = input.prefixes(cc, "zh");
    const regions = regionsOfCallingCode[cc] ?? [];
    const examples = new ExampleFinder(cc);
    for (const [nationalPrefix, holderRaw] of Object.entries(english)) {
      const holder = holderRaw.trim();
      if (!holder || !/^\d+$/.test(nationalPrefix)) continue;
      const prefix = cc + nationalPrefix;
      // The range's kind and territory are those libphonenumber gives a valid number of the range
      // (+1 758 … is Saint Lucia, +590 690 … Guadeloupe); a range with no valid number gets the
      // region libphonenumber picks by leading digits, else the calling code's main region.
      const example = examples.find(nationalPrefix);
      const region = example ? (example.country ?? INTERNATIONAL) : (examples.region(nationalPrefix) ?? regions[0] ?? INTERNATIONAL);
      const country = countries.has(region) ? region : INTERNATIONAL;
      const operatorId = linker.operatorOf(country, holder);
      if (!operatorId) unlinkedHolders.add(`${country}:${holder}`);
      const local = chinese[nationalPrefix]?.trim() || null;
      if (operatorId && local) {
        const counts = localNames.get(operatorId) ?? new Map<string, number>();
        counts.set(local, (counts.get(local) ?? 0) + 1);
        localNames.set(operatorId, counts);
      }
      carrierRanges.push({
        id: `e164-${prefix}`,
        plan: "e164",
        kind: kindOfType(example?.getType()),
        country_iso2: country,
        prefix,
        start: null,
        end: null,
        mcc: null,
        mnc: null,
        operator_id: operatorId,
        network_id: operatorId ? linker.networkOf(country, holder, operatorId) : null,
        range_holder: holder,
        range_holder_local: local,
        source: "libphonenumber-carrier",
        source_date: null,
        status: null,
        range_holder_id: null,
      });
    }
  }
  return { carrierRanges, unlinkedHolders, localNames };
}
