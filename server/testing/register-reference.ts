import { parse } from "csv-parse/sync";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";

/**
 * An independent reading of the national registers, for tests and for the coverage report
 * (scripts/registers/coverage.ts): what each register's own rows say a number's holder is, read with
 * csv-parse and a few lines per format, never with the importer under test
 * (server/src/catalog/import/registers/). docs/catalog.md "National registers" is what the server
 * must answer: the holder of an assigned block, or `not_assigned` naming the register and its date.
 */

/** A block of a register as its row writes it: full-length E.164 digits from..to, held or not. */
export interface ReferenceBlock {
  from: number;
  to: number;
  /** The holder's identifier as the row writes it (OCN, ARCEP code, INN, Ofcom's CP Name); null when not assigned. */
  holderId: string | null;
  /** The holder's name as the row writes it; null where the row names only a code (ARCEP) or nobody. */
  holderName: string | null;
}

export type RegisterFormat = "ofcom" | "arcep-majnum" | "cnac" | "ru-def";

const csv = (text: string, delimiter: string, quote = true): string[][] =>
  parse(text, { delimiter, quote: quote ? '"' : false, relax_column_count: true, bom: true, skip_empty_lines: true });

/** E.164 country codes of ARCEP's `Territoire` values (ARCEP's numbering plan: 0692 is +262 692). */
const ARCEP_TERRITORIES: Record<string, string> = {
  Métropole: "33",
  National: "33",
  "La Réunion": "262",
  "La Réunion - Océan indien": "262",
  Mayotte: "262",
  "Guadeloupe, St Martin et St Barthélemy": "590",
  Martinique: "596",
  Guyane: "594",
  "Saint Pierre et Miquelon": "508",
};

/** The Ministry's INN in the Russian register: its ranges are the state's reserve, nobody's assignment. */
export const RU_MINISTRY_INN = "7710474375";

/**
 * The blocks of one register file. `digits` is the length of the E.164 numbers the blocks are cut to
 * (a block written as a prefix covers every number of that length starting with it).
 */
export function referenceBlocks(format: RegisterFormat, bytes: Buffer): ReferenceBlock[] {
  const span = (prefix: string, length: number) => ({ from: Number(prefix.padEnd(length, "0")), to: Number(prefix.padEnd(length, "9")) });
  switch (format) {
    case "ofcom": {
      const [header, ...rows] = csv(bytes.toString("utf8"), ",");
      const at = (name: string) => header!.findIndex((h) => h.trim() === name);
      const [block, status, holder, length] = [at("NMS Number Block: Number Block"), at("Block Status"), at("CP Name"), at("Non Geo Number Length")];
      return rows.map((r) => {
        const digits = Number(/(\d+)/.exec(r[length] ?? "10")![1]);
        const assigned = r[status] === "Allocated";
        return { ...span(`44${r[block]!.replace(/\s+/g, "")}`, 2 + digits), holderId: assigned ? r[holder]! : null, holderName: assigned ? r[holder]! : null };
      });
    }
    case "arcep-majnum": {
      const [header, ...rows] = csv(bytes.toString("latin1"), ";");
      const at = (name: string) => header!.findIndex((h) => h.trim() === name);
      const [from, to, code, territory] = [at("Tranche_Debut"), at("Tranche_Fin"), at("Mnémo"), at("Territoire")];
      return rows.flatMap((r) => {
        const cc = ARCEP_TERRITORIES[r[territory]!.trim()];
        // National numbers of ten digits, 0 first; shorter ones (short codes) have no E.164 form.
        if (!cc || !/^0\d{9}$/.test(r[from]!) || !/^0\d{9}$/.test(r[to]!)) return [];
        return [{ from: Number(cc + r[from]!.slice(1)), to: Number(cc + r[to]!.slice(1)), holderId: r[code]!, holderName: null }];
      });
    }
    case "cnac": {
      const [header, , ...rows] = csv(bytes.toString("utf8"), ",");
      const at = (name: string) => header!.indexOf(name);
      const [npa, nxx, status, company, ocn] = [at("NPA"), at("CO Code (NXX)"), at("Status"), at("Company"), at("OCN")];
      return rows.map((r) => {
        // CNAC's own words: a code "Assigned" (not yet in service) or "Being Recovered" (still its holder's
        // until recovered) is held as much as one "In Service".
        const assigned = ["In Service", "Assigned", "Being Recovered"].includes(r[status]!) && Boolean(r[company]);
        return { ...span(`1${r[npa]}${r[nxx]}`, 11), holderId: assigned ? r[ocn] || r[company]! : null, holderName: assigned ? r[company]! : null };
      });
    }
    case "ru-def": {
      // Unquoted: the register writes quotes inside fields without escaping them (docs/registers.md).
      const [header, ...rows] = csv(bytes.toString("utf8"), ";", false);
      const at = (name: string) => header!.findIndex((h) => h.trim() === name);
      const [from, to, holder, inn] = [at("От"), at("До"), at("Оператор"), at("ИНН")];
      return rows.map((r) => {
        const def = r[0]!.trim();
        const assigned = r[inn] !== RU_MINISTRY_INN;
        return { from: Number(`7${def}${r[from]}`), to: Number(`7${def}${r[to]}`), holderId: assigned ? r[inn]! : null, holderName: assigned ? r[holder]! : null };
      });
    }
  }
}

/** The narrowest block holding a number (E.164 digits without +), or null when the register lists none. */
export function blockOf(blocks: readonly ReferenceBlock[], digits: string): ReferenceBlock | null {
  const n = Number(digits);
  let best: ReferenceBlock | null = null;
  for (const block of blocks) if (block.from <= n && n <= block.to && (!best || block.to - block.from < best.to - best.from)) best = block;
  return best;
}

/** A seeded generator (mulberry32): the same seed, the same sample. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` random numbers libphonenumber calls valid mobile numbers of a country (FIXED_LINE_OR_MOBILE
 * counts: NANP numbers are both), drawn uniformly over national numbers of the given length starting
 * with one of `leading`. The sample a number-lookup customer would send, not one cut to the register.
 */
export function validMobileSample(options: { callingCode: string; leading: string[]; length: number; count: number; seed: number; region?: string }): string[] {
  const random = seeded(options.seed);
  const numbers = new Set<string>();
  for (let tries = 0; numbers.size < options.count && tries < options.count * 20_000; tries++) {
    const lead = options.leading[Math.floor(random() * options.leading.length)]!;
    let national = lead;
    while (national.length < options.length) national += Math.floor(random() * 10);
    const number = `+${options.callingCode}${national}`;
    const parsed = parsePhoneNumberFromString(number);
    if (!parsed?.isValid() || (options.region && parsed.country !== options.region)) continue;
    if (parsed.getType() === "MOBILE" || parsed.getType() === "FIXED_LINE_OR_MOBILE") numbers.add(number);
  }
  return [...numbers];
}

/**
 * Random numbers libphonenumber calls valid inside a register's own blocks (for slices, which cover a
 * few blocks of a country).
 */
export function sampleInBlocks(blocks: readonly ReferenceBlock[], count: number, seed: number): string[] {
  const random = seeded(seed);
  const numbers = new Set<string>();
  for (let tries = 0; numbers.size < count && tries < count * 100; tries++) {
    const block = blocks[Math.floor(random() * blocks.length)]!;
    const number = `+${block.from + Math.floor(random() * (block.to - block.from + 1))}`;
    if (parsePhoneNumberFromString(number)?.isValid()) numbers.add(number);
  }
  return [...numbers];
}

/** What a lookup must answer for a number, by the register: its holder, or not assigned, or nothing (outside the register). */
export interface Expected {
  number: string;
  /** False where the register says nothing: CNAC's file lists area codes, and one it does not list (a newer NPA) is not its. */
  covered: boolean;
  holderId: string | null;
  holderName: string | null;
}

/**
 * Where a register speaks: CNAC of the area codes its file lists (every row is a code of one), the
 * others of their whole plan (Ofcom S7 of +44 7, MAJNUM of French numbers, the Russian register of +7 9).
 */
export function coverageOf(format: RegisterFormat, blocks: readonly ReferenceBlock[]): (digits: string) => boolean {
  if (format !== "cnac") return () => true;
  const areaCodes = new Set(blocks.map((b) => String(b.from).slice(0, 4)));
  return (digits) => areaCodes.has(digits.slice(0, 4));
}

export function expectedAnswers(blocks: readonly ReferenceBlock[], numbers: readonly string[], covered: (digits: string) => boolean = () => true): Expected[] {
  return numbers.map((number) => {
    const block = blockOf(blocks, number.slice(1));
    return { number, covered: block !== null || covered(number.slice(1)), holderId: block?.holderId ?? null, holderName: block?.holderName ?? null };
  });
}

/** The fields of a lookup answer the comparison reads (docs/api.md "Lookup"). */
export interface AnswerFields {
  range_holder: string | null;
  range_holder_reason?: string | null;
  range?: { range_holder_id?: string | null } | null;
  source?: { id: string; date: string | null } | null;
}

/**
 * Compares answers with the register: an assigned block's number answers its holder (identifier, and
 * name where the row has one) from `source`; any other number of the register's coverage answers
 * not_assigned from it. Returns the numbers that do not, with what each said.
 */
export function compareWithRegister(
  expected: readonly Expected[],
  answers: readonly AnswerFields[],
  source: { id: string; date: string },
  /** Other files of the same register that may say a block is not assigned (ARCEP's GELNUM of frozen numbers), with their dates. */
  alsoNotAssignedBy: Record<string, string> = {},
) {
  const agree: string[] = [];
  const disagree: Array<{ number: string; expected: string; answered: string }> = [];
  expected.forEach((e, i) => {
    const a = answers[i]!;
    const from = (id: string, date: string) => a.source?.id === id && a.source?.date === date;
    const ok = !e.covered
      ? a.source?.id !== source.id
      : e.holderId
      ? from(source.id, source.date) && a.range?.range_holder_id === e.holderId && (e.holderName === null || a.range_holder === e.holderName)
      : (from(source.id, source.date) || Object.entries(alsoNotAssignedBy).some(([id, date]) => from(id, date))) &&
        a.range_holder === null &&
        a.range_holder_reason === "not_assigned";
    if (ok) agree.push(e.number);
    else
      disagree.push({
        number: e.number,
        expected: !e.covered ? "not the register's" : e.holderId ? `${e.holderId} (${e.holderName ?? "code only"})` : "not_assigned",
        answered: `${a.range?.range_holder_id ?? a.range_holder ?? a.range_holder_reason} from ${a.source?.id ?? "no source"} ${a.source?.date ?? ""}`,
      });
  });
  return { agree: agree.length, disagree, share: agree.length / Math.max(1, expected.length) };
}
