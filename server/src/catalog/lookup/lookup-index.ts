import type { Network, NumberRange, Operator } from "../../contract/catalog.ts";
import type { Db } from "../../db/db.ts";
import type { Logger } from "../../log.ts";
import { networks, numberRanges, operators } from "../model/entities.ts";
import { NumberAnswers } from "./lookup-answers.ts";
import { geoDataOf, nextTurn, type GeoData, type Pause } from "./number-geo.ts";
import { streamRecords } from "../model/queries.ts";
import { findVersionBySeq } from "../model/versions.ts";

/**
 * The in-memory longest-prefix index of one dataset version: E.164 and IMSI prefixes to ranges,
 * PLMNs to networks, operators by id. A lookup probes the number's own prefixes from the longest
 * present length down: a handful of Map probes, never a scan. Ranges given as start..end are entered
 * under their minimal prefix cover (8617600000000-8617649999999 -> 861760 … 861764).
 */
export interface LookupIndex {
  seq: number;
  e164: PrefixMap<NumberRange>;
  imsi: PrefixMap<NumberRange>;
  networksByPlmn: Map<string, Network>;
  operators: Map<string, Operator>;
  networksByOperator: Map<string, Network[]>;
  /**
   * Each MCC's home country: the country most of the version's networks and IMSI blocks under it have
   * (ties: alphabetical). An IMSI's country when no network of it is known (docs/api.md "Lookup").
   */
  mccCountries: Map<string, string>;
  /** The version's sources by id (name, date): each answer's `source`. */
  sources: Map<string, { name: string; date: string | null }>;
  /**
   * The E.164 prefixes a national register of this version is the authority for, with that register:
   * a number inside one that no range matches is not assigned (docs/catalog.md "National registers").
   */
  coverage: PrefixMap<{ id: string; name: string; date: string | null }>;
  /** The serialised answers of this version: range parts built once per range and projection. */
  answers: NumberAnswers;
  /** The location and time-zone data lookups of this version read (the files in use when it was built). */
  geo: GeoData;
}

/** A node of {@link PrefixMap}'s digit trie: the value of the prefix that ends here, and the next digits. */
interface PrefixNode<T> {
  value: T | undefined;
  next: (PrefixNode<T> | undefined)[] | undefined;
}

/**
 * Digit prefixes to values, for the longest-prefix match of a number or an IMSI. A trie with one
 * node per digit: a match walks the number's digits once, reading arrays by digit, and makes no
 * string but the matched prefix. Probing a Map with each prefix length instead (a new string and
 * its hash per length, from the longest present down) took 1.4 µs a number on the reference
 * dataset's 28,884 E.164 prefixes (docs/performance.md).
 */
export class PrefixMap<T> {
  readonly #root: PrefixNode<T> = { value: undefined, next: undefined };
  #size = 0;

  /** The first value set for a prefix stays (records arrive in id order, so this is deterministic). */
  set(prefix: string, value: T): void {
    if (!/^\d*$/.test(prefix)) throw new Error(`PrefixMap: ${JSON.stringify(prefix)} is not a digit prefix`);
    let node = this.#root;
    for (let i = 0; i < prefix.length; i++) {
      const digit = prefix.charCodeAt(i) - 48;
      const next = (node.next ??= new Array(10).fill(undefined));
      node = next[digit] ??= { value: undefined, next: undefined };
    }
    if (node.value !== undefined) return;
    node.value = value;
    this.#size++;
  }

  /** The value of the longest prefix of `digits`, with that prefix. */
  longest(digits: string): { prefix: string; value: T } | null {
    let node: PrefixNode<T> | undefined = this.#root;
    let length = node.value === undefined ? -1 : 0;
    let value = node.value;
    for (let i = 0; i < digits.length; i++) {
      const digit = digits.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) break;
      node = node.next?.[digit];
      if (node === undefined) break;
      if (node.value !== undefined) {
        length = i + 1;
        value = node.value;
      }
    }
    return length < 0 ? null : { prefix: digits.slice(0, length), value: value! };
  }

  get size(): number {
    return this.#size;
  }
}

/**
 * The smallest set of digit prefixes whose numbers (of the same length) are exactly start..end.
 * @example
 * prefixCover("8617600000000", "8617649999999") // ["861760", "861761", "861762", "861763", "861764"]
 */
export function prefixCover(start: string, end: string): string[] {
  if (start.length !== end.length) throw new Error(`prefixCover: ${start} and ${end} differ in length`);
  if (/^0*$/.test(start) && /^9*$/.test(end)) return [""];
  const [a, b] = [start[0]!, end[0]!];
  const restLo = start.slice(1);
  const restHi = end.slice(1);
  if (a === b) return prefixCover(restLo, restHi).map((p) => a + p);
  const out = prefixCover(restLo, "9".repeat(restLo.length)).map((p) => a + p);
  for (let d = Number(a) + 1; d < Number(b); d++) out.push(String(d));
  out.push(...prefixCover("0".repeat(restHi.length), restHi).map((p) => b + p));
  return out;
}

function coverOf(range: NumberRange): string[] {
  if (range.prefix !== null) return [range.prefix];
  if (range.start !== null && range.end !== null) return prefixCover(range.start, range.end);
  return [];
}

/** Records read between two pauses of an index build: one batch of `streamRecords`. */
const RECORDS_PER_SLICE = 2_000;

export interface BuildOptions {
  /**
   * Called every {@link RECORDS_PER_SLICE} records: by default the next event-loop turn, so that a
   * build (at start, or for a new dataset version) does not hold up other requests while it runs.
   */
  pause?: Pause;
  /** Where a build reports what it could not read (stored geo files: {@link geoDataOf}). */
  log?: Pick<Logger, "warn">;
}

/** Reads one version into memory: about 30 ms per thousand ranges, in slices (`options.pause`). */
export async function buildLookupIndex(db: Db, seq: number, options: BuildOptions = {}): Promise<LookupIndex> {
  const pause = options.pause ?? nextTurn;
  const index = {
    seq,
    e164: new PrefixMap<NumberRange>(),
    imsi: new PrefixMap<NumberRange>(),
    networksByPlmn: new Map<string, Network>(),
    operators: new Map<string, Operator>(),
    networksByOperator: new Map<string, Network[]>(),
    mccCountries: new Map<string, string>(),
    sources: new Map(),
    coverage: new PrefixMap(),
    // The libphonenumber files `import carriers` stored in the database, if any, give the index its geo data.
    geo: await geoDataOf(db, options.log),
  } as LookupIndex;
  for (const source of (await findVersionBySeq(db, seq))?.sources ?? []) {
    const date = source.published_at?.slice(0, 10) ?? null;
    index.sources.set(source.id, { name: source.name, date });
    for (const prefix of source.coverage ?? []) index.coverage.set(prefix, { id: source.id, name: source.name, date });
  }
  index.answers = new NumberAnswers(index);
  let read = 0;
  const sliceDone = () => ++read % RECORDS_PER_SLICE === 0;
  for await (const operator of streamRecords(db, operators, seq, RECORDS_PER_SLICE)) {
    index.operators.set(operator.id, operator as Operator);
    if (sliceDone()) await pause();
  }
  const mccCounts = new Map<string, Map<string, number>>();
  const countMcc = (mcc: string, country: string) => {
    const counts = mccCounts.get(mcc) ?? new Map<string, number>();
    counts.set(country, (counts.get(country) ?? 0) + 1);
    mccCounts.set(mcc, counts);
  };
  for await (const network of streamRecords(db, networks, seq, RECORDS_PER_SLICE)) {
    const n = network as Network;
    index.networksByPlmn.set(n.mcc + n.mnc, n);
    countMcc(n.mcc, n.country_iso2);
    if (n.operator_id) index.networksByOperator.set(n.operator_id, [...(index.networksByOperator.get(n.operator_id) ?? []), n]);
    if (sliceDone()) await pause();
  }
  for await (const record of streamRecords(db, numberRanges, seq, RECORDS_PER_SLICE)) {
    const range = record as NumberRange;
    const map = range.plan === "e164" ? index.e164 : index.imsi;
    for (const prefix of coverOf(range)) map.set(prefix, range);
    if (range.plan === "e212" && range.mcc) countMcc(range.mcc, range.country_iso2);
    if (sliceDone()) await pause();
  }
  for (const [mcc, counts] of mccCounts) {
    const best = [...counts].filter(([country]) => country !== "ZZ").sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    if (best) index.mccCountries.set(mcc, best[0]);
  }
  return index;
}

/**
 * Keeps the index of the current version: built on first use and rebuilt when a request pins a newer
 * version (another instance's import shows up through the envelope's version check, so every
 * instance follows within the meta cache's second). Concurrent requests share one build.
 */
export class LookupIndexes {
  #current: LookupIndex | null = null;
  #building = new Map<number, Promise<LookupIndex>>();

  constructor(
    private readonly db: Db,
    private readonly options: BuildOptions = {},
  ) {}

  /**
   * The index of version `seq`; `pause` is the build's when this call starts it. The current index is
   * handed back as it is (no promise on the hot path), any other as a promise.
   */
  at(seq: number, pause?: Pause): LookupIndex | Promise<LookupIndex> {
    if (this.#current?.seq === seq) return this.#current;
    return this.#build(seq, pause);
  }

  async #build(seq: number, pause?: Pause): Promise<LookupIndex> {
    let build = this.#building.get(seq);
    if (!build) {
      build = buildLookupIndex(this.db, seq, { ...this.options, pause: pause ?? this.options.pause }).finally(() => this.#building.delete(seq));
      this.#building.set(seq, build);
    }
    const index = await build;
    // Keep the newest version only; a request pinned to an older one (during a switch) gets its own.
    if (!this.#current || index.seq > this.#current.seq) this.#current = index;
    return index;
  }
}
