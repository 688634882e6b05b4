import type { SourceDescriptor } from "../../../contract/catalog.ts";
import type { CandidateDataset, CapabilityRecord, CountryRecord, NetworkRecord, NumberRangeRecord, OperatorRecord } from "../../model/records.ts";

/** A candidate held in arrays: easy to build, inspect and modify (tests, the demo). */
export interface MaterialisedDataset extends CandidateDataset {
  countries: CountryRecord[];
  operators: OperatorRecord[];
  networks: NetworkRecord[];
  numberRanges: NumberRangeRecord[];
  capabilities: CapabilityRecord[];
}

export const DEMO_SOURCE: SourceDescriptor = {
  id: "demo",
  name: "ir21 demo dataset (hand-made, NOT real operator data)",
  package: null,
  version: "1",
  files: [],
  license: "CC0-1.0",
  attribution: "Hand-made demonstration data shipped with ir21 for tests and first runs; values are illustrative only.",
  url: null,
  published_at: null,
  effective_at: null,
  sample: true,
};

const range = (
  digits: string,
  operatorId: string | null,
  holder: string,
  extra: Partial<NumberRangeRecord> = {},
): NumberRangeRecord => ({
  id: `e164-${digits}`,
  plan: "e164",
  kind: "mobile",
  country_iso2: digits.startsWith("86") ? "CN" : digits.startsWith("44") ? "GB" : "US",
  prefix: digits,
  start: null,
  end: null,
  mcc: null,
  mnc: null,
  operator_id: operatorId,
  network_id: null,
  range_holder: holder,
  range_holder_local: null,
  source: "demo",
  source_date: null,
  status: null,
  range_holder_id: null,
  ...extra,
});

const network = (id: string, country: string, operatorId: string, name: string, technologies: string[]): NetworkRecord => {
  const [mcc, mnc] = id.split("-") as [string, string];
  return {
    id,
    mcc,
    mnc,
    country_iso2: country,
    operator_id: operatorId,
    name,
    tadig: null,
    network_type: "national",
    status: "operational",
    technologies,
    bands: [],
    source: "demo",
  };
};

const capability = (networkId: string, country: string, operatorId: string, name: string, value: unknown): CapabilityRecord => ({
  id: `network:${networkId}:${name}`,
  subject_type: "network",
  subject_id: networkId,
  country_iso2: country,
  operator_id: operatorId,
  network_id: networkId,
  name,
  value,
  effective_at: null,
  source: "demo",
});

/**
 * A small, clearly labelled dataset (source `demo`, marked `sample`) for tests and for a first run
 * when the reference packages are unavailable. Every call returns fresh arrays, so a test can modify
 * one copy to make "version B".
 * @example
 * await importDataset({ db, clock }, demoDataset());
 * const b = demoDataset();
 * b.numberRanges.push({ ...b.numberRanges[0]!, id: "e164-86199", prefix: "86199" });
 * await importDataset({ db, clock }, b); // one ir21.number_range.added
 */
export function demoDataset(): MaterialisedDataset {
  return {
    sourceMode: "demo",
    sources: [{ ...DEMO_SOURCE }],
    countries: [
      { iso2: "CN", iso3: "CHN", name: "China", name_zh: "中国", calling_codes: ["86"], mccs: ["460", "461"] },
      { iso2: "GB", iso3: "GBR", name: "United Kingdom", name_zh: "英国", calling_codes: ["44"], mccs: ["234", "235"] },
      { iso2: "US", iso3: "USA", name: "United States of America", name_zh: "美国", calling_codes: ["1"], mccs: ["310", "311", "312", "313", "314", "315", "316"] },
    ],
    operators: [
      { id: "cn.china-mobile", country_iso2: "CN", name: "China Mobile", name_local: "中国移动", brand: "China Mobile", tadig: null, status: "active", successor_id: null, lineage: null, listed: true, territories: ["CN"], register_ids: [], source: "demo" },
      { id: "cn.china-unicom", country_iso2: "CN", name: "China Unicom", name_local: "中国联通", brand: "China Unicom", tadig: null, status: "active", successor_id: null, lineage: null, listed: true, territories: ["CN"], register_ids: [], source: "demo" },
      { id: "cn.china-telecom", country_iso2: "CN", name: "China Telecom", name_local: "中国电信", brand: "China Telecom", tadig: null, status: "active", successor_id: null, lineage: null, listed: true, territories: ["CN"], register_ids: [], source: "demo" },
      { id: "gb.ee", country_iso2: "GB", name: "EE", name_local: null, brand: "EE", tadig: null, status: "active", successor_id: null, lineage: null, listed: true, territories: ["GB"], register_ids: [], source: "demo" },
    ],
    networks: [
      network("460-00", "CN", "cn.china-mobile", "China Mobile", ["GSM", "LTE", "NR"]),
      network("460-01", "CN", "cn.china-unicom", "China Unicom", ["GSM", "UMTS", "LTE", "NR"]),
      network("460-11", "CN", "cn.china-telecom", "China Telecom", ["LTE", "NR"]),
      network("234-30", "GB", "gb.ee", "EE", ["GSM", "UMTS", "LTE", "NR"]),
    ],
    numberRanges: [
      range("86138", "cn.china-mobile", "China Mobile", { range_holder_local: "中国移动" }),
      range("86139", "cn.china-mobile", "China Mobile", { range_holder_local: "中国移动" }),
      range("86130", "cn.china-unicom", "China Unicom", { range_holder_local: "中国联通" }),
      range("86133", "cn.china-telecom", "China Telecom", { range_holder_local: "中国电信" }),
      range("86170", null, "Demo Virtual Mobile", { range_holder_local: "演示虚拟运营商" }),
      range("447700", "gb.ee", "EE"),
      {
        ...range("", "cn.china-telecom", "China Telecom"),
        id: "e212-46011-0000000000-0999999999",
        plan: "e212",
        prefix: null,
        start: "460110000000000",
        end: "460110999999999",
        mcc: "460",
        mnc: "11",
        country_iso2: "CN",
        network_id: "460-11",
      },
    ],
    capabilities: [
      capability("460-00", "CN", "cn.china-mobile", "lte.roaming", true),
      capability("460-00", "CN", "cn.china-mobile", "volte.s8hr", true),
      capability("460-01", "CN", "cn.china-unicom", "camel.phases", ["CAP2", "CAP3"]),
      capability("460-11", "CN", "cn.china-telecom", "nr.nsa", true),
      capability("234-30", "GB", "gb.ee", "nr.sa", false),
    ],
  };
}
