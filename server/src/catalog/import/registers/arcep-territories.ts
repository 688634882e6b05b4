/**
 * France's numbering plan is one plan for Metropolitan France and the overseas departments and
 * communities, but their numbers have different E.164 country codes: `0590 12 34 56` (Guadeloupe)
 * is `+590 590 12 34 56`, `0262 …` (Réunion) `+262 262 …`, and Saint-Pierre-et-Miquelon's
 * geographic `0508 41 23 45` is `+508 41 23 45` (its six-digit national numbers).
 */

export interface Territory {
  /** ISO 3166-1 alpha-2. Saint-Barthélemy and Saint-Martin share Guadeloupe's numbers: GP. */
  country: string;
  callingCode: string;
}

const T = {
  FR: { country: "FR", callingCode: "33" },
  GP: { country: "GP", callingCode: "590" },
  GF: { country: "GF", callingCode: "594" },
  MQ: { country: "MQ", callingCode: "596" },
  RE: { country: "RE", callingCode: "262" },
  YT: { country: "YT", callingCode: "262" },
  PM: { country: "PM", callingCode: "508" },
} satisfies Record<string, Territory>;

/** ARCEP's `Territoire` values (compared lower-cased, accents kept). `National` is Metropolitan numbering without a place (08, short codes). */
const TERRITORIES: Record<string, Territory> = {
  "métropole": T.FR,
  national: T.FR,
  "guadeloupe, st martin et st barthélemy": T.GP,
  guadeloupe: T.GP,
  guyane: T.GF,
  martinique: T.MQ,
  "la réunion": T.RE,
  "la réunion - océan indien": T.RE,
  mayotte: T.YT,
  "saint pierre et miquelon": T.PM,
};

/** The territory an ARCEP `Territoire` names, or null when unknown. */
export function territoryNamed(name: string): Territory | null {
  return TERRITORIES[name.trim().toLowerCase()] ?? null;
}

/**
 * Overseas national prefixes (with the trunk 0) from ARCEP's plan: each department's geographic and
 * mobile ZABPQ, and in the series it shares with the others (0598, 0700 5–9, 0709, 0901, 0939,
 * 0947, 0976) the digit that gives its place. Anything else is Metropolitan. Used where a file has
 * no `Territoire` (GELNUM); where it has one, the MAJNUM reader checks the two agree.
 */
const OVERSEAS: [string, Territory][] = [
  ...["0590", "05987", "0690", "0691", "07005", "07090", "09015", "09395", "09475", "09760", "09761", "09768"].map((p) => [p, T.GP] as [string, Territory]),
  ...["0594", "05988", "0694", "07006", "070930", "070931", "070932", "070933", "070934", "09016", "09396", "09476", "09764", "09765"].map((p) => [p, T.GF] as [string, Territory]),
  ...["0596", "05989", "0696", "0697", "07007", "07091", "09017", "09397", "09477", "09766", "09767"].map((p) => [p, T.MQ] as [string, Territory]),
  ...["0262", "0263", "02688", "0692", "0693", "07009", "07092", "09399", "09479", "09762", "09763"].map((p) => [p, T.RE] as [string, Territory]),
  ...["0269", "02689", "0639", "07008", "070935", "070936", "070937", "070938", "070939", "09398", "09478", "09769"].map((p) => [p, T.YT] as [string, Territory]),
  ...["0508", "0708"].map((p) => [p, T.PM] as [string, Territory]),
];
// Longest first, so that 070935 wins over a shorter entry.
OVERSEAS.sort((a, b) => b[0].length - a[0].length);

/**
 * The territory of a national number or prefix (with its trunk 0) by the plan's prefixes.
 *
 * @example
 * territoryOfNational("0690123456").country // "GP"
 * territoryOfNational("0612345678").country // "FR"
 */
export function territoryOfNational(national: string): Territory {
  for (const [prefix, territory] of OVERSEAS) if (national.startsWith(prefix)) return territory;
  return T.FR;
}

/**
 * A national number (with its trunk 0) as E.164 digits in a territory: the calling code, then the
 * number without its 0; Saint-Pierre-et-Miquelon's `0508` numbers drop `0508` (their E.164 form is
 * `+508` and six digits).
 *
 * @example
 * e164OfNational("0590123456", territoryNamed("Guadeloupe")!) // "590590123456"
 * e164OfNational("0508412345", territoryNamed("Saint Pierre et Miquelon")!) // "508412345"
 */
export function e164OfNational(national: string, territory: Territory): string {
  if (territory.country === "PM" && national.startsWith("0508")) return `508${national.slice(4)}`;
  return `${territory.callingCode}${national.slice(1)}`;
}

/**
 * How long the national numbers (with the 0) under a prefix are, where a file gives only the prefix
 * (GELNUM): 14 digits for Metropolitan M2M numbers (0700 0–4), 13 for the overseas ones (0700 5–9)
 * and 0901 5–7, else 10.
 */
export function nationalLength(prefix: string): number {
  if (/^0700[0-4]/.test(prefix)) return 14;
  if (/^0700[5-9]/.test(prefix) || /^0901[5-7]/.test(prefix)) return 13;
  return 10;
}
