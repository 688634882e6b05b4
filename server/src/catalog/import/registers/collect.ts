import type {
  BlockStatus,
  FileDateSource,
  HolderRef,
  ImportReport,
  ListedReason,
  ListedRow,
  RegisterBlock,
  RegisterFile,
  RegisterHolder,
  RegisterId,
  RegisterNetwork,
  RegisterResource,
  ReportWarning,
  TextEncodingName,
} from "./types.ts";

/** The length every block is padded to when blocks of different number lengths are compared: E.164's maximum. */
const SPAN = 15;

/**
 * Collects one file's rows into a `RegisterFile` and keeps its accounts: every row the reader sees is
 * either kept (a block, network or resource) or listed with a reason, so `read = kept + listed`.
 *
 * Blocks are checked against each other as they arrive, in file order: a block equal to an earlier
 * one is listed as `duplicate`, one overlapping an earlier kept block as `overlap` (naming its line).
 * The earlier row wins, so the outcome does not depend on how blocks sort. Blocks of different
 * lengths (Ofcom's 9- and 10-digit 0800 numbers) are compared as spans of the digit strings they
 * cover: start padded with 0s and end with 9s to 15 digits.
 */
export class Collector {
  private readonly blocks: RegisterBlock[] = [];
  private readonly networks: RegisterNetwork[] = [];
  private readonly resources: RegisterResource[] = [];
  private readonly listed: ListedRow[] = [];
  private readonly warnings: ReportWarning[] = [];
  private readonly holders = new Map<string, RegisterHolder>();
  private readonly blockKeys = new Map<string, RegisterBlock>();
  private readonly resourceKeys = new Map<string, RegisterResource>();
  /** Kept E.164 blocks as non-overlapping padded spans, sorted by start. */
  private readonly spans: { start: string; end: string; block: RegisterBlock }[] = [];
  private kept = 0;
  private read = 0;
  private modelled: string[] = [];
  private notModelled: string[] = [];
  layout: string | null = null;
  fileDate: string | null = null;
  fileDateFrom: FileDateSource | null = null;

  constructor(
    readonly register: RegisterId,
    readonly country: string | null,
    readonly file: string | null,
    readonly encoding: TextEncodingName | null,
    readonly unit: "line" | "entry",
    readonly recognisedBy: "header" | "format",
  ) {}

  /** A row was seen (call once per line or entry, before keeping or listing it). */
  seen(count = 1): void {
    this.read += count;
  }

  list(row: number, reason: ListedReason, detail: string): void {
    this.listed.push({ row, reason, detail });
  }

  warn(row: number | null, code: string, detail: string): void {
    this.warnings.push({ row, code, detail });
  }

  columns(modelled: string[], notModelled: string[]): void {
    this.modelled = modelled;
    this.notModelled = notModelled;
  }

  /** Keeps a block unless it repeats or overlaps an earlier one (then lists it). */
  block(block: RegisterBlock): boolean {
    const key = `${block.plan}:${block.plan === "national_short" ? block.country : ""}:${block.start}:${block.end}`;
    const same = this.blockKeys.get(key);
    if (same) {
      const differs = holderId(same.holder) !== holderId(block.holder) || same.status !== block.status;
      this.list(
        block.row,
        "duplicate",
        `${block.registerBlock} repeats line ${same.row}${differs ? ` with a different ${holderId(same.holder) !== holderId(block.holder) ? "holder" : "status"} (${describe(block)} against ${describe(same)})` : ""}`,
      );
      return false;
    }
    if (block.plan === "e164") {
      const clash = this.overlapping(block);
      if (clash) {
        this.list(block.row, "overlap", `${block.registerBlock} (${block.start}–${block.end}) overlaps line ${clash.row}'s ${clash.registerBlock} (${clash.start}–${clash.end})`);
        return false;
      }
    }
    this.blockKeys.set(key, block);
    this.blocks.push(block);
    this.kept++;
    if (block.holder) this.holder(block.holder).blocks++;
    return true;
  }

  network(network: RegisterNetwork): void {
    this.networks.push(network);
    this.kept++;
    if (network.holder) this.holder(network.holder).networks++;
  }

  /** Keeps a resource unless the same kind and code came earlier (then lists it). */
  resource(resource: RegisterResource): boolean {
    const key = `${resource.kind}:${resource.code}`;
    const same = this.resourceKeys.get(key);
    if (same) {
      const differs = holderId(same.holder) !== holderId(resource.holder);
      this.list(resource.row, "duplicate", `${resource.code} repeats line ${same.row}${differs ? ` with a different holder (${holderId(resource.holder)} against ${holderId(same.holder)})` : ""}`);
      return false;
    }
    this.resourceKeys.set(key, resource);
    this.resources.push(resource);
    this.kept++;
    if (resource.holder) this.holder(resource.holder).resources++;
    return true;
  }

  private holder(ref: HolderRef): RegisterHolder {
    let holder = this.holders.get(ref.id);
    if (!holder) {
      holder = { id: ref.id, names: [], blocks: 0, networks: 0, resources: 0 };
      this.holders.set(ref.id, holder);
    }
    if (ref.name !== null && !holder.names.includes(ref.name)) holder.names.push(ref.name);
    return holder;
  }

  private overlapping(block: RegisterBlock): RegisterBlock | null {
    const start = block.start.padEnd(SPAN, "0");
    const end = block.end.padEnd(SPAN, "9");
    const spans = this.spans;
    const last = spans[spans.length - 1];
    // Registers are mostly sorted: the common case appends.
    if (!last || start > last.end) {
      spans.push({ start, end, block });
      return null;
    }
    // The first kept span ending at or after this start is the only one that can begin the overlap.
    let lo = 0;
    let hi = spans.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (spans[mid]!.end < start) lo = mid + 1;
      else hi = mid;
    }
    const next = spans[lo];
    if (next && next.start <= end) return next.block;
    spans.splice(lo, 0, { start, end, block });
    return null;
  }

  /** The file, refused: nothing kept from it. */
  static refused(file: string | null, register: RegisterId | null, recognisedBy: "header" | "format", encoding: TextEncodingName | null, reason: string): RegisterFile {
    return {
      register,
      country: null,
      fileDate: null,
      fileDateFrom: null,
      blocks: [],
      holders: [],
      networks: [],
      resources: [],
      report: {
        file,
        register,
        recognisedBy,
        layout: null,
        encoding,
        refused: reason,
        rows: { unit: "line", read: 0, kept: 0, listed: 0 },
        listed: [],
        warnings: [],
        columns: { modelled: [], notModelled: [] },
        blocksByStatus: {},
        blocks: 0,
        networks: 0,
        resources: 0,
        holders: 0,
      },
    };
  }

  finish(): RegisterFile {
    const blocksByStatus: Partial<Record<BlockStatus, number>> = {};
    for (const b of this.blocks) blocksByStatus[b.status] = (blocksByStatus[b.status] ?? 0) + 1;
    const report: ImportReport = {
      file: this.file,
      register: this.register,
      recognisedBy: this.recognisedBy,
      layout: this.layout,
      encoding: this.encoding,
      refused: null,
      rows: { unit: this.unit, read: this.read, kept: this.kept, listed: this.listed.length },
      listed: this.listed,
      warnings: this.warnings,
      columns: { modelled: this.modelled, notModelled: this.notModelled },
      blocksByStatus,
      blocks: this.blocks.length,
      networks: this.networks.length,
      resources: this.resources.length,
      holders: this.holders.size,
    };
    return {
      register: this.register,
      country: this.country,
      fileDate: this.fileDate,
      fileDateFrom: this.fileDateFrom,
      blocks: this.blocks,
      holders: [...this.holders.values()],
      networks: this.networks,
      resources: this.resources,
      report,
    };
  }
}

const holderId = (h: HolderRef | null) => h?.id ?? null;
const describe = (b: RegisterBlock) => `${b.status}${b.holder ? ` ${b.holder.id}` : ""}`;

/**
 * The prefix a start–end range is exactly (every number starting with it), or null: trailing
 * positions where start has 0 and end has 9 are dropped, and what remains must be equal.
 *
 * @example
 * asPrefix("79000000000", "79000999999") // "7900"
 * asPrefix("79000000000", "79000061999") // null
 */
export function asPrefix(start: string, end: string): string | null {
  if (start.length !== end.length) return null;
  let i = start.length;
  while (i > 0 && start[i - 1] === "0" && end[i - 1] === "9") i--;
  return start.slice(0, i) === end.slice(0, i) ? start.slice(0, i) : null;
}

/** A block with the fields every reader fills the same way defaulted (built field by field: one object shape for every block). */
export function blockOf(f: Pick<RegisterBlock, "row" | "start" | "end" | "registerBlock" | "status"> & Partial<RegisterBlock>): RegisterBlock {
  return {
    row: f.row,
    plan: f.plan ?? "e164",
    country: f.country ?? null,
    prefix: f.prefix !== undefined ? f.prefix : asPrefix(f.start, f.end),
    start: f.start,
    end: f.end,
    registerBlock: f.registerBlock,
    status: f.status,
    registerStatus: f.registerStatus ?? null,
    inService: f.inService ?? null,
    pooled: f.pooled ?? null,
    holder: f.holder ?? null,
    region: f.region ?? null,
    subdivision: f.subdivision ?? null,
    assignedOn: f.assignedOn ?? null,
    dates: f.dates ?? {},
    numberLength: f.numberLength ?? null,
    notes: f.notes ?? null,
  };
}

/** The value, or null when it is empty or only spaces (names and notes are otherwise kept exactly as written). */
export function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === "" ? null : value;
}
