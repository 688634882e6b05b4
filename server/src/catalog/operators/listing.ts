import { normaliseName } from "./names.ts";

/**
 * Rows of the reference data that are no operator (docs/catalog.md "Listings"): mcc-mnc-list keeps
 * MNCs reserved for tests, private or unassigned use, and rows that name several operators sharing one
 * MNC ("Celcom, DiGi, Maxis, Tune Talk, …", "Shared Telus, Bell, and SaskTel"). Their records stay in
 * the dataset and resolve by id (a network or an old link may name them) but are kept out of listings
 * (`listed: false`). The reason, or null for a real operator.
 */
const PLACEHOLDER_NAMES = new Set(["test", "tests", "test network", "test networks", "private network", "private networks", "unassigned"]);

export function unlistedReason(operator: { name: string; brand: string | null }): string | null {
  if (PLACEHOLDER_NAMES.has(normaliseName(operator.name))) return `placeholder row "${operator.name}", not an operator`;
  // Three or more names in a list ("A, B and C"): several operators sharing an MNC, not one operator.
  const parts = operator.name
    .split(/,|\band\b|&/i)
    .map((part) => normaliseName(part))
    .filter(Boolean);
  if (operator.name.includes(",") && parts.length >= 3) return `composite row naming ${parts.length} operators`;
  return null;
}
