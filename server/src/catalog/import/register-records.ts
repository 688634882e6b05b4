import { getCountryCallingCode, type CountryCode } from "libphonenumber-js/max";
import { ExampleFinder, kindOfType } from "../model/number-kind.ts";
import type { NumberRangeRecord, OperatorRecord } from "../model/records.ts";
import { normaliseName, slug } from "../operators/names.ts";
import type { MaterialisedDataset } from "./importers/demo.ts";
import { REGISTER_OPERATOR_LINKS } from "./importers/register-operators.ts";
import { registerSource, type RegisterFamily, type RegisterInput } from "./national-registers.ts";
import type { RegisterBlock, RegisterHolder, RegisterId } from "./registers/index.ts";

/**
 * National registers as catalogue records (docs/catalog.md "National registers"), laid over a
 * candidate dataset:
 *
 * - a register is the authority for the numbers it covers (its coverage: the E.164 prefixes its files
 *   list every block of, e.g. +44 7 for Ofcom's S7, +7 9 for the Russian register, +33 and France's
 *   overseas codes for ARCEP's MAJNUM, each Canadian area code of CNAC's file). Every range of another
 *   source inside the coverage is replaced by the register's blocks: where the register assigns a
 *   block, its holder wins over libphonenumber's carrier mapper; where it assigns none, the number is
 *   not assigned (the lookup says so). The ranges replaced whose holder differs from the register's are
 *   reported (`disagreements`);
 * - each block becomes a range with the file's date, the block's status and the holder's identifier;
 *   blocks not assigned (free, reserved, …) are ranges without a holder;
 * - each holder of assigned blocks is an operator: the reference data's, when certain evidence links
 *   them (importers/register-operators.ts; for ARCEP the regulator's own MNC assignments, MAJMNC), the
 *   operator then also carrying the register's identifier; else a record of its own
 *   (`gb.ofcom-colt-technology-services`, `ru.inn-7705017253`), active, since the regulator's
 *   current register states it holds numbers.
 */

export interface RegisterOverlayReport {
  /** Per register file: blocks made into ranges and by status, holders, operators linked and made. */
  files: Array<{
    source: string;
    file: string;
    date: string;
    origin: "packaged" | "loaded";
    coverage: string[];
    ranges: number;
    byStatus: Record<string, number>;
    /** The reader's rows not kept (header, date line, duplicates, …): none dropped silently. */
    listed: number;
    /**
     * Blocks the reader kept that make no range here, by reason (a national short code, an assigned
     * NANPA area code, a block an earlier file of the register already gave): counted, never silent.
     */
    notRanges: Record<string, number>;
    /** The blocks the reader kept: `ranges` plus every `notRanges` count. */
    blocks: number;
    holders: number;
  }>;
  /** Ranges of other sources inside a register's coverage, replaced by it. */
  replaced: number;
  /**
   * Of those, every one whose holder the register does not confirm for every number of the range: it
   * names another holder for some of them, or assigns some to nobody (with the register's holders of
   * the range's numbers; null: not assigned).
   */
  disagreements: RegisterDisagreement[];
  operators: { linked: number; created: number };
}

/** What a family contributes: its files, the holders' names (ARCEP's companions name the codes MAJNUM lists). */
/** A range of another source (libphonenumber's) whose holder a register does not confirm. */
export interface RegisterDisagreement {
  prefix: string;
  /** The holder the other source named. */
  was: string;
  /** The register's holders of the range's numbers; null: some are not assigned. */
  register: Array<string | null>;
  /** The register source whose coverage holds the range (GELNUM's frozen blocks ride on MAJNUM's). */
  source: string;
}

interface FamilyInputs {
  family: RegisterFamily;
  inputs: RegisterInput[];
}

/** Registers whose blocks become ranges (ARCEP's companions only name holders and MNCs). */
const BLOCK_REGISTERS: ReadonlySet<RegisterId> = new Set([
  "ca-cnac-co-codes",
  "us-nanpa-npa",
  "gb-ofcom-s3",
  "gb-ofcom-s5",
  "gb-ofcom-s7",
  "gb-ofcom-s8",
  "gb-ofcom-s9",
  "ru-rossvyaz-def",
  "fr-arcep-majnum",
  "fr-arcep-gelnum",
]);

/**
 * The E.164 prefixes a file is the authority for: the area codes of CNAC's file, the national series of
 * an Ofcom file (+44 7 for S7), the DEF codes of the Russian register (+7 9), the calling codes of
 * ARCEP's blocks. NANPA's area-code report names no holders: it covers nothing (its unassigned area
 * codes are ranges without a holder); GELNUM's frozen blocks ride on MAJNUM's coverage.
 */
function coverageOf(input: RegisterInput): string[] {
  const blocks = input.file.blocks.filter((b) => b.plan === "e164");
  const prefixes = new Set<string>();
  switch (input.file.register) {
    case "ca-cnac-co-codes":
      for (const b of blocks) prefixes.add(b.start.slice(0, 4));
      break;
    case "gb-ofcom-s3":
    case "gb-ofcom-s5":
    case "gb-ofcom-s7":
    case "gb-ofcom-s8":
    case "gb-ofcom-s9":
      for (const b of blocks) prefixes.add(b.start.slice(0, 3));
      break;
    case "ru-rossvyaz-def":
      for (const b of blocks) prefixes.add(b.start.slice(0, 2));
      break;
    case "fr-arcep-majnum":
      for (const b of blocks) if (b.country) prefixes.add(getCountryCallingCode(b.country as CountryCode));
      break;
    default:
      break;
  }
  return [...prefixes].sort();
}

const within = (digits: string, coverage: readonly string[]) => coverage.some((prefix) => digits.startsWith(prefix));

/** A range's digits to test against coverage: its prefix, else its first number. */
const digitsOf = (range: NumberRangeRecord) => range.prefix ?? range.start ?? "";

/**
 * The candidate with the registers in use laid over it, and what was done. Unchanged when no register
 * file is in use.
 * @example
 * const { dataset, report } = withRegisters(reference, await registerFilesInUse(db));
 */
export function withRegisters(dataset: MaterialisedDataset, inputs: readonly RegisterInput[]): { dataset: MaterialisedDataset; report: RegisterOverlayReport } {
  const report: RegisterOverlayReport = { files: [], replaced: 0, disagreements: [], operators: { linked: 0, created: 0 } };
  if (inputs.length === 0) return { dataset, report };
  const families = new Map<string, FamilyInputs>();
  for (const input of inputs) {
    const entry = families.get(input.family.id) ?? { family: input.family, inputs: [] };
    entry.inputs.push(input);
    families.set(input.family.id, entry);
  }

  const operators = new Map(dataset.operators.map((o) => [o.id, o]));
  const registerIds = new Map<string, OperatorRecord["register_ids"]>();
  /**
   * Blocks a register assigns an operator, counted by territory: a Réunion block of Orange France's
   * (ARCEP) makes Réunion one of Orange's territories; an operator the registers made is filed under
   * the territory most of its blocks are in, whatever order the file lists them in.
   */
  const attested = new Map<string, Map<string, number>>();
  const madeByRegisters = new Set<string>();
  const sources = [...dataset.sources];
  const ranges: NumberRangeRecord[] = [];
  const rangeIds = new Set<string>();
  const coverage: string[] = [];
  /** Which register source covers each coverage prefix (a disagreement names it). */
  const coveredBy = new Map<string, string>();
  const coverageSource = (digits: string) => [...coveredBy].find(([prefix]) => digits.startsWith(prefix))?.[1] ?? "";

  for (const { family, inputs: files } of families.values()) {
    const names = holderNames(files);
    const linkOf = linker(family, files, dataset);
    const operatorOf = new Map<string, string>();
    const operatorFor = (holder: RegisterHolder | undefined, id: string, source: string, country: string): string => {
      let operatorId = operatorOf.get(id);
      if (operatorId) return operatorId;
      const linked = linkOf(id);
      if (linked && operators.has(linked)) {
        operatorId = linked;
        report.operators.linked++;
      } else {
        operatorId = `${family.country.toLowerCase()}.${family.operatorIdPrefix}-${slug(id) || "holder"}`;
        if (!operators.has(operatorId)) {
          const name = names.get(id) ?? holder?.names.at(-1) ?? id;
          operators.set(operatorId, {
            id: operatorId,
            country_iso2: country,
            name,
            name_local: family.country === "RU" ? name : null,
            brand: null,
            tadig: null,
            status: "active",
            successor_id: null,
            lineage: null,
            listed: true,
            territories: [country],
            register_ids: [],
            source,
          });
          report.operators.created++;
          madeByRegisters.add(operatorId);
        }
      }
      const ids = registerIds.get(operatorId) ?? [];
      if (!ids.some((r) => r.register === family.id && r.id === id)) ids.push({ register: family.id, id });
      registerIds.set(operatorId, ids);
      operatorOf.set(id, operatorId);
      return operatorId;
    };

    const attest = (operatorId: string, country: string) => {
      const counts = attested.get(operatorId) ?? new Map<string, number>();
      attested.set(operatorId, counts.set(country, (counts.get(country) ?? 0) + 1));
      return operatorId;
    };

    for (const input of files) {
      const fileCoverage = coverageOf(input);
      const source = registerSource(input, fileCoverage);
      sources.push(source);
      if (!BLOCK_REGISTERS.has(input.file.register)) continue;
      coverage.push(...fileCoverage);
      for (const prefix of fileCoverage) coveredBy.set(prefix, source.id);
      const holders = new Map(input.file.holders.map((h) => [h.id, h]));
      const byStatus: Record<string, number> = {};
      const notRanges: Record<string, number> = {};
      const skip = (reason: string) => void (notRanges[reason] = (notRanges[reason] ?? 0) + 1);
      let made = 0;
      const examples = new Map<string, ExampleFinder>();
      for (const block of input.file.blocks) {
        if (block.plan !== "e164") {
          skip("no E.164 form (a national short code)");
          continue;
        }
        // NANPA's report: an assigned area code names no holder (its holders are NANPA's code reports, `import nanpa`).
        if (input.file.register === "us-nanpa-npa" && block.status === "assigned") {
          skip("an assigned area code (its holders are in NANPA's code reports: import nanpa)");
          continue;
        }
        const id = block.prefix !== null ? `e164-${block.prefix}` : `e164-${block.start}-${block.end}`;
        // The first file to give a block keeps it (files of a family in the order given).
        if (rangeIds.has(id)) {
          skip("the same block as an earlier file of the registers");
          continue;
        }
        rangeIds.add(id);
        const assigned = block.status === "assigned" && block.holder !== null;
        const { kind, country } = kindAndCountry(block, family, examples);
        // The name as this row writes it; a register whose rows carry only codes (MAJNUM) is named by its companions.
        const holderName = assigned ? (block.holder!.name ?? names.get(block.holder!.id) ?? block.holder!.id) : null;
        ranges.push({
          id,
          plan: "e164",
          kind,
          country_iso2: country,
          prefix: block.prefix,
          start: block.prefix !== null ? null : block.start,
          end: block.prefix !== null ? null : block.end,
          mcc: null,
          mnc: null,
          operator_id: assigned ? attest(operatorFor(holders.get(block.holder!.id), block.holder!.id, source.id, country), country) : null,
          network_id: null,
          range_holder: holderName,
          range_holder_local: assigned && family.country === "RU" ? holderName : null,
          source: source.id,
          source_date: input.date,
          status: block.status,
          range_holder_id: assigned ? block.holder!.id : null,
        });
        byStatus[block.status] = (byStatus[block.status] ?? 0) + 1;
        made++;
      }
      report.files.push({
        source: source.id,
        file: input.name,
        date: input.date,
        origin: input.origin,
        coverage: fileCoverage,
        ranges: made,
        byStatus,
        listed: input.file.report.rows.listed,
        notRanges,
        blocks: input.file.blocks.length,
        holders: input.file.holders.length,
      });
    }
  }

  // Other sources' ranges inside a register's coverage give way to it; what they said is compared.
  const registerRanges = ranges;
  const kept: NumberRangeRecord[] = [];
  const overlapping = overlapIndex(registerRanges);
  for (const range of dataset.numberRanges) {
    if (range.plan !== "e164" || !within(digitsOf(range), coverage) || range.prefix === null) {
      kept.push(range);
      continue;
    }
    report.replaced++;
    if (!range.range_holder) continue;
    const theirs = overlapping(range.prefix);
    const confirmed = theirs.covered && theirs.ranges.every((r) => sameHolder(range, r));
    if (!confirmed) {
      const holders = [...new Set(theirs.ranges.map((r) => (r.status === "assigned" ? r.range_holder : null)))];
      report.disagreements.push({
        prefix: range.prefix,
        was: range.range_holder,
        register: theirs.covered ? holders : [...holders, null],
        source: coverageSource(range.prefix),
      });
    }
  }

  return {
    dataset: {
      ...dataset,
      sources,
      operators: [...operators.values()]
        .map((o) => (registerIds.has(o.id) ? { ...o, register_ids: mergeIds(o.register_ids, registerIds.get(o.id)!) } : o))
        .map((o) => (attested.has(o.id) ? withTerritories(o, attested.get(o.id)!, madeByRegisters.has(o.id)) : o))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
      numberRanges: [...kept, ...registerRanges].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    },
    report,
  };
}

/**
 * An operator with the territories where registers assign it blocks (docs/catalog.md "Territories"),
 * sorted, its country included. One the registers made is filed under its territory of most blocks
 * (ties: alphabetical); one of the reference data keeps its country.
 */
function withTerritories(operator: OperatorRecord, blocks: Map<string, number>, madeByRegister: boolean): OperatorRecord {
  const country = madeByRegister
    ? [...blocks].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0]
    : operator.country_iso2;
  const territories = madeByRegister ? new Set([country, ...blocks.keys()]) : new Set([country, ...operator.territories, ...blocks.keys()]);
  return { ...operator, country_iso2: country, territories: [...territories].sort() };
}

/** Holders' names by identifier: MAJNUM names only codes, its companions (MAJRIO first) name them. */
function holderNames(files: readonly RegisterInput[]): Map<string, string> {
  const names = new Map<string, string>();
  const order = (register: RegisterId) => (register === "fr-arcep-majrio" ? 0 : register === "fr-arcep-majmnc" ? 1 : 2);
  for (const input of [...files].sort((a, b) => order(a.file.register) - order(b.file.register))) {
    for (const holder of input.file.holders) {
      const name = holder.names.at(-1);
      if (name && !names.has(holder.id)) names.set(holder.id, name);
    }
  }
  return names;
}

/**
 * The reference operator a register holder certainly is, or null: the link table; for ARCEP, the
 * operator whose networks are the MNCs MAJMNC assigns to the code (all of them one operator's).
 */
function linker(family: RegisterFamily, files: readonly RegisterInput[], dataset: MaterialisedDataset): (holder: string) => string | null {
  const table = new Map(REGISTER_OPERATOR_LINKS.filter((l) => l.family === family.id).map((l) => [l.holder, l.operator]));
  const byMnc = new Map<string, Set<string>>();
  const networkOperator = new Map(dataset.networks.map((n) => [`${n.mcc}${n.mnc}`, n.operator_id]));
  for (const input of files) {
    if (input.file.register !== "fr-arcep-majmnc") continue;
    for (const network of input.file.networks) {
      if (!network.holder || network.msinPrefix !== null) continue;
      const operator = networkOperator.get(`${network.mcc}${network.mnc}`);
      if (!operator) continue;
      const set = byMnc.get(network.holder.id) ?? new Set<string>();
      set.add(operator);
      byMnc.set(network.holder.id, set);
    }
  }
  return (holder) => {
    const listed = table.get(holder);
    if (listed) return listed;
    const operators = byMnc.get(holder);
    return operators && operators.size === 1 ? [...operators][0]! : null;
  };
}

/**
 * A block's kind (libphonenumber's type of a valid number of it) and country (that number's region,
 * so Jersey's +44 7797 blocks are JE's): as the reference importer files carrier prefixes.
 */
function kindAndCountry(block: RegisterBlock, family: RegisterFamily, examples: Map<string, ExampleFinder>): { kind: NumberRangeRecord["kind"]; country: string } {
  const fallback = block.country ?? family.country;
  const callingCode = getCountryCallingCode(fallback as CountryCode);
  if (!block.start.startsWith(callingCode)) return { kind: "other", country: fallback };
  let finder = examples.get(callingCode);
  if (!finder) examples.set(callingCode, (finder = new ExampleFinder(callingCode)));
  const national = (block.prefix ?? commonPrefix(block.start, block.end)).slice(callingCode.length);
  const example = finder.find(national);
  return { kind: kindOfType(example?.getType()), country: example?.country ?? fallback };
}

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
};

/** One range per id (the readers keep one block per row; across a family's files the first wins). */
/**
 * The register ranges sharing numbers with a prefix: the block holding it (a shorter or equal prefix)
 * or the blocks inside it (longer prefixes, start..end blocks), and whether they leave none of its
 * numbers out. Blocks are sorted by their first number, so the ones inside are a slice found by search.
 */
function overlapIndex(ranges: readonly NumberRangeRecord[]): (prefix: string) => { ranges: NumberRangeRecord[]; covered: boolean } {
  const byPrefix = new Map<string, NumberRangeRecord>();
  const sorted = [...ranges].map((r) => ({ range: r, first: r.prefix ?? r.start!, last: r.prefix ?? r.end! })).sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  for (const r of ranges) if (r.prefix !== null) byPrefix.set(r.prefix, r);
  const firstAtOrAfter = (digits: string) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]!.first < digits) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return (prefix) => {
    for (let length = prefix.length; length > 0; length--) {
      const holding = byPrefix.get(prefix.slice(0, length));
      if (holding) return { ranges: [holding], covered: true };
    }
    // Blocks inside the prefix: their first numbers start with it. Counted as covering it when their
    // numbers add up to all of the prefix's (at one length, the blocks' own).
    const inside: NumberRangeRecord[] = [];
    for (let i = firstAtOrAfter(prefix); i < sorted.length && sorted[i]!.first.startsWith(prefix); i++) inside.push(sorted[i]!.range);
    return { ranges: inside, covered: inside.length > 0 && numbersOf(inside) >= numbersUnder(prefix, inside) };
  };
}

/** How many numbers of one length the blocks hold (a prefix block: every continuation to that length). */
function numbersOf(blocks: readonly NumberRangeRecord[]): number {
  const length = lengthOf(blocks);
  return blocks.reduce((sum, b) => sum + (b.prefix !== null ? 10 ** (length - b.prefix.length) : Number(b.end!.slice(0, length)) - Number(b.start!.slice(0, length)) + 1), 0);
}
const lengthOf = (blocks: readonly NumberRangeRecord[]) => Math.max(...blocks.map((b) => (b.prefix ?? b.start!).length));
const numbersUnder = (prefix: string, blocks: readonly NumberRangeRecord[]) => 10 ** (lengthOf(blocks) - prefix.length);

/** The two name the same holder: the same operator, or the same name once legal forms are dropped. */
function sameHolder(range: NumberRangeRecord, register: NumberRangeRecord | null): boolean {
  if (!register?.range_holder || register.status !== "assigned") return false;
  if (range.operator_id !== null && range.operator_id === register.operator_id) return true;
  return normaliseName(range.range_holder ?? "") === normaliseName(register.range_holder);
}

function mergeIds(existing: OperatorRecord["register_ids"], added: OperatorRecord["register_ids"]): OperatorRecord["register_ids"] {
  const all = [...existing];
  for (const id of added) if (!all.some((e) => e.register === id.register && e.id === id.id)) all.push(id);
  return all.sort((a, b) => (a.register + a.id < b.register + b.id ? -1 : 1));
}
