import countriesLib from "i18n-iso-countries";
import { getCountryCallingCode, isSupportedCountry, type CountryCode } from "libphonenumber-js/max";
import { INTERNATIONAL, type CountryRecord } from "../../model/records.ts";
import type { ReferencePackage } from "./reference-packages.ts";

/**
 * The reference dataset's countries (i18n-iso-countries names in English and Chinese, libphonenumber-js
 * calling codes) and the two readings of the MCC/MNC list's country column that every later section
 * shares. Their `mccs` are filled by the networks section (reference-networks.ts).
 */
export interface ReferenceCountries {
  /** ISO 3166-1 alpha-2 → record; also AC, TA and the non-geographic INTERNATIONAL. */
  countries: Map<string, CountryRecord>;
  /** The one country a list row files under: "BL/GF/GP/MF/MQ" (shared MCC) → the first listed; "GE-AB" (a region) → its country. */
  countryOf(code: string | null): string;
  /** Every country a list row names ("YT/RE" → YT and RE), unknown codes left out. */
  territoriesOf(code: string | null): string[];
  /** Calling code → the regions libphonenumber numbers under it, main region first. */
  regionsOfCallingCode: Record<string, string[]>;
}

interface PhoneMetadata {
  country_calling_codes: Record<string, string[]>;
  nonGeographic?: Record<string, unknown>;
}

const callingCodesOf = (iso2: string) => (isSupportedCountry(iso2) ? [getCountryCallingCode(iso2 as CountryCode)] : []);

export function referenceCountries(countryNames: ReferencePackage, phone: ReferencePackage): ReferenceCountries {
  const en = JSON.parse(countryNames.files.read("langs/en.json").toString("utf8"));
  const zh = JSON.parse(countryNames.files.read("langs/zh.json").toString("utf8"));
  countriesLib.registerLocale(en);
  countriesLib.registerLocale(zh);
  const phoneMetadata = JSON.parse(phone.files.read("metadata.max.json").toString("utf8")) as PhoneMetadata;
  const namesEn = countriesLib.getNames("en", { select: "official" });
  const namesZh = countriesLib.getNames("zh", { select: "official" });
  const countries = new Map<string, CountryRecord>();
  for (const [iso2, name] of Object.entries(namesEn)) {
    countries.set(iso2, {
      iso2,
      iso3: countriesLib.alpha2ToAlpha3(iso2) ?? null,
      name,
      name_zh: namesZh[iso2] ?? null,
      calling_codes: callingCodesOf(iso2),
      mccs: [],
    });
  }
  // Regions libphonenumber numbers that ISO 3166-1 only reserves: Ascension (+247) and Tristan da
  // Cunha (+290 8), parts of Saint Helena (SH).
  for (const [iso2, name, nameZh] of [
    ["AC", "Ascension Island", "阿森松岛"],
    ["TA", "Tristan da Cunha", "特里斯坦-达库尼亚"],
  ] as const) {
    if (countries.has(iso2)) continue;
    countries.set(iso2, { iso2, iso3: null, name, name_zh: nameZh, calling_codes: callingCodesOf(iso2), mccs: [] });
  }
  countries.set(INTERNATIONAL, {
    iso2: INTERNATIONAL,
    iso3: null,
    name: "International networks (non-geographic)",
    name_zh: "国际网络（非地理）",
    calling_codes: Object.keys(phoneMetadata.nonGeographic ?? {}).sort(),
    mccs: [],
  });
  return {
    countries,
    countryOf(code) {
      if (!code) return INTERNATIONAL;
      for (const part of code.split("/")) {
        const iso2 = part.slice(0, 2).toUpperCase();
        if (countries.has(iso2)) return iso2;
      }
      return INTERNATIONAL;
    },
    territoriesOf: (code) =>
      (code ?? "")
        .split("/")
        .map((part) => part.slice(0, 2).toUpperCase())
        .filter((iso2) => countries.has(iso2)),
    regionsOfCallingCode: phoneMetadata.country_calling_codes,
  };
}
