import { createHash } from "node:crypto";

/**
 * Operator names from different sources spell the same company differently ("China Mobile",
 * "China Mobile Communications Corporation", "Telefónica Móviles S.A."). Linking compares them in
 * this normal form: diacritics, punctuation, parentheticals and legal-form words removed.
 */
const LEGAL_FORMS = new Set([
  "ltd", "limited", "inc", "incorporated", "llc", "plc", "sa", "sas", "sarl", "sl", "spa", "srl", "ag", "gmbh", "bv", "nv", "co", "corp",
  "corporation", "company", "group", "holding", "holdings", "jsc", "ojsc", "pjsc", "cjsc", "pte", "pty", "sdn", "bhd", "as", "asa", "ab",
  "oy", "oyj", "kk", "kft", "zrt", "doo", "dd", "ad", "ead", "sae", "saa", "cv", "de", "the", "and", "communications", "llp", "lp",
]);

export function normaliseName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/\([^)]*\)/g, " ")
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9\u4e00-\u9fff]+/g, " ")
    .split(" ")
    .filter((word) => word && !LEGAL_FORMS.has(word))
    .join(" ");
}

/**
 * The key names are linked on (reference importer): the normal form above, after joining dotted
 * abbreviations ("S.A.", "S. A.", "B.V.", "a.s") into one word so their legal forms drop out:
 * "VTR S.A." and "VTR" must meet. Not used for ids, which stay as they were first derived.
 */
export function linkKey(name: string): string {
  return normaliseName(name.replace(/\b(?:[A-Za-z]\.\s?){1,3}[A-Za-z]\b\.?/g, (abbreviation) => abbreviation.replace(/[.\s]/g, "")));
}

/** A link key without spaces: "Tele 2" and "Tele2", "True Move" and "TrueMove" meet. */
export const compactKey = (name: string): string => linkKey(name).replace(/ /g, "");

/** Lower-case ASCII words joined by hyphens, for ids: "AT&T Mobility" -> "at-t-mobility". */
export function slug(name: string): string {
  const s = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 90)
    .replace(/-+$/, "");
  // A name with no Latin letters (e.g. only Chinese) still needs a stable, distinct id.
  return s || `n-${createHash("sha1").update(name).digest("hex").slice(0, 10)}`;
}
