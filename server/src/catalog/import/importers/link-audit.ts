/**
 * The link audit list (docs/catalog.md "Link audit"): holder names the automatic rules linked to the
 * wrong operator, with the operator they belong to (or null: none in the reference data, so the range
 * stays unlinked: a wrong link is worse than none) and why. The reference importer applies every
 * entry before any other rule; link-audit.test.ts checks each against the imported data.
 */
export interface LinkAuditEntry {
  country: string;
  holder: string;
  /**
   * The operator the rules linked it to, wrongly; null for a holder the rules leave unlinked and
   * that stays unlinked on purpose (no certain operator in the reference data): the entry says why.
   */
  wrong: string | null;
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
  // Left unlinked on purpose (issue 19 candidates not certain enough, or whose operator record is
  // filed under another territory): a wrong link is worse than none.
  {
    country: "PR",
    holder: "CENTENNIAL",
    wrong: null,
    correct: null,
    reason:
      "Centennial Puerto Rico became AT&T's (mcc-mnc-list 310-280, 'Former Centennial Puerto Rico', not operational), and AT&T sold its Puerto Rico business to Liberty Latin America in 2020; the reference data files 310-280 under the US operator AT&T Mobility, so a link would name a US operator as current. Left to the territories work (a Puerto Rico AT&T/Liberty record).",
  },
  {
    country: "KR",
    holder: "SKTellink",
    wrong: null,
    correct: null,
    reason: "SK Telink is SK Telecom's MVNO subsidiary (brand SK 7mobile), a separate company from SK Telecom (450-05); mcc-mnc-list has no SK Telink row.",
  },
  {
    country: "NO",
    holder: "Lyse Tele",
    wrong: null,
    correct: null,
    reason: "Lyse owns Altibox, but mcc-mnc-list's Altibox row (242-22) says 'Former Network Norway AS', not Lyse Tele: the same company is not certain.",
  },
  {
    country: "SE",
    holder: "Telavox AB",
    wrong: null,
    correct: null,
    reason: "Telavox is a business telephony provider with its own number ranges and no MNC: no Telavox row in mcc-mnc-list, and no network operator it certainly became.",
  },
  {
    country: "FR",
    holder: "Prixtel",
    wrong: null,
    correct: null,
    reason: "Prixtel is an MVNO with its own number ranges and no MNC: no Prixtel row in mcc-mnc-list; its host network is not a successor.",
  },
];
