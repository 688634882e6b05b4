/**
 * The link audit list (docs/catalog.md "Link audit"): holder names the automatic rules linked to the
 * wrong operator, with the operator they belong to (or null: none in the reference data, so the range
 * stays unlinked: a wrong link is worse than none) and why. The reference importer applies every
 * entry before any other rule; link-audit.test.ts checks each against the imported data.
 */
export interface LinkAuditEntry {
  country: string;
  holder: string;
  /** The operator the rules linked it to, wrongly. */
  wrong: string;
  /** The right operator, or null when the reference data has none. */
  correct: string | null;
  reason: string;
}

export const LINK_AUDIT: readonly LinkAuditEntry[] = [
  {
    country: "GE",
    holder: "Cellfie",
    wrong: "ge.silknet",
    correct: "ge.mobitel",
    reason: "Cellfie is the 2022 rebrand of Beeline Georgia (Mobitel LLC, 282-04); Silknet (282-01, ex-Geocell) is its competitor. The old alias came from a misread merger note.",
  },
  {
    country: "MY",
    holder: "XOX",
    wrong: "my.celcom-digi-maxis-tune-talk-u-mobile-unifi-xox-yes",
    correct: null,
    reason: "XOX is an MVNO; the target is a composite mcc-mnc-list row naming eight brands at once (a shared MNC), not an operator. No XOX operator record exists.",
  },
  {
    country: "LC",
    holder: "Digicel",
    wrong: "jm.digicel",
    correct: null,
    reason: "Digicel Saint Lucia is a separate licensee from Digicel Jamaica; mcc-mnc-list has no Saint Lucian Digicel record, so the shared brand linked across the territory.",
  },
  {
    country: "MS",
    holder: "Digicel",
    wrong: "jm.digicel",
    correct: null,
    reason: "Digicel Montserrat is not Digicel Jamaica; no Montserrat Digicel record in mcc-mnc-list.",
  },
];
