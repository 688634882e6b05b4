import { createRequire } from "node:module";
import countries from "i18n-iso-countries";

/**
 * Country names as NANPA and the ITU list write them, to ISO 3166-1 alpha-2. i18n-iso-countries
 * (a server dependency, pinned) knows official names and common aliases; NANPA's abbreviations
 * (`ST. KITTS & NEVIS`, `ANTIGUA/BARBUDA`) are brought to its spelling first, and the ITU's own
 * spellings it does not know are listed here. A name neither knows gives null: the readers warn.
 */

const require = createRequire(import.meta.url);
countries.registerLocale(require("i18n-iso-countries/langs/en.json"));

/** Names i18n-iso-countries does not know, as the sources write them (lower-cased). */
const OVERRIDES: Record<string, string> = {
  "sint maarten": "SX",
  "bolivia (plurinational state of)": "BO",
  "british virgin islands": "VG",
  "cabo verde": "CV",
  "central african rep.": "CF",
  "czech rep.": "CZ",
  "dem. rep. of the congo": "CD",
  "dominican rep.": "DO",
  // MCC 647: Réunion, Mayotte and the Scattered Islands under one ITU area; Réunion is its main one.
  "french departments and territories in the indian ocean": "RE",
  "hong kong, china": "HK",
  "iran (islamic republic of)": "IR",
  "korea (rep. of)": "KR",
  "kosovo[1]*": "XK",
  "lao p.d.r.": "LA",
  "macao, china": "MO",
  micronesia: "FM",
  "moldova (republic of)": "MD",
  "saint helena, ascension and tristan da cunha": "SH",
  "the former yugoslav republic of macedonia": "MK",
  "venezuela (bolivarian republic of)": "VE",
  "viet nam": "VN",
};

/**
 * ISO alpha-2 for a country name, or null.
 *
 * @example
 * countryCode("ST. KITTS & NEVIS") // "KN"
 * countryCode("Korea (Rep. of)")   // "KR"
 */
export function countryCode(name: string): string | null {
  const lower = name.trim().toLowerCase();
  if (OVERRIDES[lower]) return OVERRIDES[lower];
  const spelled = lower
    .replace(/\s*&\s*/g, " and ")
    .replace(/\s*\/\s*/g, " and ")
    .replace(/^st\.\s*/, "saint ")
    .replace(/^saint vincent and grenadines$/, "saint vincent and the grenadines");
  return countries.getAlpha2Code(spelled, "en") ?? null;
}
