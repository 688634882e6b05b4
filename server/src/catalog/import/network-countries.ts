import countriesLib from "i18n-iso-countries";

/**
 * The country of a network (docs/catalog.md "A network's country"): decided from the MCC/MNC sources
 * alone, so that loading any other source (carrier prefixes, a numbering register) never moves it.
 *
 * The MCC/MNC lists file a pair under every country that uses it: 234-50 under GB, GG and JE, 310-140
 * under US and GU, 340-02 under `BL/GF/GP/MF/MQ` (one entry naming the five territories sharing MCC
 * 340) and again under GF. The rule, in order:
 *
 * 1. the pair's entries naming one country each name exactly one: that one (338-050 … see 3);
 * 2. of those, exactly one is a territory other than the MCC's home and the home is named too: the
 *    territory (310-140 → GU, 425-05 → PS), unless that "territory" is itself the home of another MCC
 *    (270-77 is listed under BE, whose MCC is 206: it stays LU);
 * 3. otherwise the MCC's home when named (234-50 → GB, 310-260 → US), else the first country named, in
 *    the list's order (338-050 → BM);
 * 4. a pair listed only under a shared entry: the one territory its own words name (operator, brand or
 *    notes: "Martinique Téléphone Mobile" → MQ), else the MCC's home (340 → GP, 647 → RE).
 *
 * The MCC's home is the country most of the MCC's single-country entries name (ties: the first in
 * alphabetical order); for the MCCs the lists give only to several territories at once, the ITU's
 * area (E.212 list): 340 Guadeloupe (the ITU files 340-01…10 and 340-20 there), 647 Réunion, 362
 * Curaçao, 505 Australia.
 */

/** MCCs the lists name only in shared entries, to the ITU's area of them. */
export const SHARED_MCC_HOME: Readonly<Record<string, string>> = { "340": "GP", "647": "RE", "362": "CW", "505": "AU" };

/** One entry of a list for the rule: the countries it names, and its own words. */
export interface CountryEntry {
  mcc: string;
  mnc: string;
  /** ISO alpha-2 codes the entry names, in its order. */
  countries: string[];
  words: Array<string | null>;
}

/** Other names the lists use for territories sharing an MCC (besides their English ISO names). */
const TERRITORY_NAMES: Record<string, string[]> = {
  GF: ["guyane", "french guiana"],
  RE: ["reunion"],
  YT: ["mayotte", "maore"],
  GP: ["guadeloupe"],
  MQ: ["martinique"],
  BL: ["saint barthelemy", "st barth"],
  MF: ["saint martin"],
  CW: ["curacao"],
  SX: ["sint maarten"],
  BQ: ["bonaire"],
};

const fold = (s: string) =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ");

function namesOf(iso2: string): string[] {
  const own = countriesLib.getName(iso2, "en");
  return [...(TERRITORY_NAMES[iso2] ?? []), ...(own ? [fold(own).trim()] : [])];
}

/** The homes of every MCC: the country most of its single-country entries name, or the shared table's. */
export function mccHomes(entries: readonly CountryEntry[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const e of entries) {
    if (e.countries.length !== 1) continue;
    const byCountry = counts.get(e.mcc) ?? new Map<string, number>();
    byCountry.set(e.countries[0]!, (byCountry.get(e.countries[0]!) ?? 0) + 1);
    counts.set(e.mcc, byCountry);
  }
  const homes = new Map<string, string>();
  for (const [mcc, byCountry] of counts) {
    const best = [...byCountry].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
    homes.set(mcc, best);
  }
  for (const [mcc, home] of Object.entries(SHARED_MCC_HOME)) homes.set(mcc, home);
  return homes;
}

/**
 * The country of each pair (`mcc-mnc`) the entries name, by the rule above.
 * @example
 * networkCountries(entries).get("310-140") // "GU"
 */
export function networkCountries(entries: readonly CountryEntry[], homes: ReadonlyMap<string, string> = mccHomes(entries)): Map<string, string> {
  const byPair = new Map<string, CountryEntry[]>();
  for (const e of entries) {
    if (e.countries.length === 0) continue;
    const key = `${e.mcc}-${e.mnc}`;
    byPair.set(key, [...(byPair.get(key) ?? []), e]);
  }
  const homeMccs = new Map<string, Set<string>>();
  for (const [mcc, home] of homes) homeMccs.set(home, (homeMccs.get(home) ?? new Set()).add(mcc));
  const result = new Map<string, string>();
  for (const [pair, list] of byPair) {
    const mcc = list[0]!.mcc;
    const home = homes.get(mcc) ?? null;
    const single = [...new Set(list.filter((e) => e.countries.length === 1).map((e) => e.countries[0]!))];
    if (single.length === 1) {
      result.set(pair, single[0]!);
      continue;
    }
    if (single.length > 1) {
      // A territory of the home's MCC: not the home of an MCC of its own.
      const others = single.filter((c) => c !== home);
      const territory = others.length === 1 && ![...(homeMccs.get(others[0]!) ?? [])].some((m) => m !== mcc) ? others[0]! : null;
      if (home !== null && single.includes(home) && territory !== null) result.set(pair, territory);
      else result.set(pair, home !== null && single.includes(home) ? home : single[0]!);
      continue;
    }
    // Shared entries only: the territory the entries' own words name, else the MCC's home.
    const shared = [...new Set(list.flatMap((e) => e.countries))];
    const words = fold(list.flatMap((e) => e.words.filter((w): w is string => w !== null)).join(" "));
    const named = shared.filter((c) => namesOf(c).some((n) => n !== "" && ` ${words} `.includes(` ${n}`)));
    if (named.length === 1) result.set(pair, named[0]!);
    else result.set(pair, home !== null && shared.includes(home) ? home : shared[0]!);
  }
  return result;
}

/** The countries an mcc-mnc-list `countryCode` names: `AU/CC/CX` three, `GE-AB` (Abkhazia) GE. */
export function listCountries(code: string | null, known: (iso2: string) => boolean = () => true): string[] {
  return [
    ...new Set(
      (code ?? "")
        .split("/")
        .map((part) => part.trim().slice(0, 2).toUpperCase())
        .filter((iso2) => /^[A-Z]{2}$/.test(iso2) && known(iso2)),
    ),
  ];
}
