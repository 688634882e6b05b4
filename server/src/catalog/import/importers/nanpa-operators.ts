/**
 * NANPA code and block holders that are certainly a catalogue operator (docs/catalog.md "NANP
 * coverage"): the company a report names, normalised (nanpaCompanyKey), → the operator id the
 * reference importer derives. Keyed by company name, not OCN: one carrier files under many OCNs (one
 * per state or affiliate, several per merger), while the company name is the same in every state once
 * the report's " - <state>" suffix is dropped.
 *
 * Only the company that runs the operator's mobile network, under its own or its licensee's name. Not
 * an affiliate that runs another business of the same group (Verizon New York, Inc. is Verizon's
 * wireline telephone company; AT&T Corp. its long-distance one; Bell Canada Bell's wireline
 * company), not a company merely bought by a group: they stay unlinked, as every company not listed
 * here. A range is linked only when it is filed under the entry's country (a Puerto Rico code of
 * the same company is Puerto Rico's business) and the operator exists in the dataset.
 */
export interface NanpaOperator {
  country: "US" | "CA";
  /** The company as the reports write it (case, punctuation and a trailing " - <state>" do not matter). */
  company: string;
  operator: string;
  /** Why this company is that operator. */
  why: string;
}

export const NANPA_OPERATORS: readonly NanpaOperator[] = [
  { country: "US", company: "CELLCO PARTNERSHIP DBA VERIZON WIRELESS", operator: "us.verizon-wireless", why: "Cellco Partnership is the company that does business as Verizon Wireless; it holds Verizon's wireless licences and codes" },
  { country: "US", company: "NEW CINGULAR WIRELESS PCS, LLC", operator: "us.at-t-mobility", why: "Cingular Wireless was renamed AT&T Mobility in 2007; its licensee New Cingular Wireless PCS, LLC kept the name and holds AT&T Mobility's codes" },
  { country: "US", company: "T-MOBILE USA, INC.", operator: "us.t-mobile-us", why: "T-Mobile USA, Inc. is the operating company of T-Mobile US (mcc-mnc-list's T-Mobile US, 310-260)" },
  { country: "US", company: "SPRINT SPECTRUM L.P.", operator: "us.sprint", why: "Sprint Spectrum L.P. was Sprint's PCS wireless company (Sprint Corporation, 312-240); merged into T-Mobile in 2020, the holder stays Sprint" },
  { country: "CA", company: "BELL MOBILITY INC.", operator: "ca.bell-mobility", why: "Bell Mobility Inc. is BCE's wireless company, the operator Bell Mobility itself" },
  { country: "CA", company: "ROGERS COMMUNICATIONS CANADA INC.", operator: "ca.rogers", why: "Rogers Communications Canada Inc. is the operating company of Rogers Communications (Rogers Wireless) since 2016" },
  { country: "CA", company: "ROGERS COMMUNICATIONS PARTNERSHIP", operator: "ca.rogers", why: "Rogers Communications Partnership was the same operating company's name until its 2016 reorganisation into Rogers Communications Canada Inc." },
  { country: "CA", company: "TELUS MOBILITY", operator: "ca.telus-mobility", why: "the holder is the operator Telus Mobility itself" },
];

/**
 * A report's company name as a key: upper case, the trailing " - NJ" state suffix dropped, punctuation
 * other than hyphens and ampersands removed, spaces collapsed.
 * @example
 * nanpaCompanyKey("Cellco Partnership dba Verizon Wireless - NY") // "CELLCO PARTNERSHIP DBA VERIZON WIRELESS"
 */
export function nanpaCompanyKey(company: string): string {
  return company
    .toUpperCase()
    .replace(/\s+-\s+[A-Z]{2}\s*$/, "")
    .replace(/[^A-Z0-9&\- ]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
