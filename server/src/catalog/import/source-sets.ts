import { gunzipSync, gzipSync } from "node:zlib";
import type { Clock } from "../../clock.ts";
import { insertUnlessDuplicate, type Db } from "../../db/db.ts";
import { forUpdate, writeTransaction, type WriteTrx } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import { digestOf } from "./importers/libphonenumber-files.ts";
import type { SourceFileTable } from "../model/tables.ts";

/**
 * Source files an operator loads into the installation (`import carriers`, `import nanpa`), kept in
 * the database every instance shares (docs/catalog.md "Loaded source files"): whichever instance runs
 * a later import, scheduled or manual, or builds a lookup index, reads the same files.
 *
 * A set is stored with its files and made current in one transaction, so a reader sees the set before
 * or the set after, never half of one; the pointer row of the kind is written by every store, so two
 * stores at once take turns (on Galera the second to commit fails certification and is run again):
 * one of the two sets ends current, complete. The set current before stays stored until the next store,
 * for a reader that read the pointer just before; older ones are deleted.
 */

/** `register:<family>`: a national register family's files (national-registers.ts). */
export type SourceKind = "libphonenumber" | "nanpa" | `register:${string}`;

/** Files by path (`carrier/en/86.txt`, `central-office-codes.txt`). */
export type SourceFiles = Map<string, Buffer>;

export interface SourceSetInfo {
  kind: SourceKind;
  /** {@link digestOf} the files. */
  digest: string;
  version: string | null;
  release: string | null;
}

export interface SourceSet extends SourceSetInfo {
  files: SourceFiles;
}

/**
 * A part of a compressed file, one row. The driver sends a Buffer as hex in the statement's text, so an
 * INSERT of {@link BATCH_BYTES} is about 2 MB: below max_allowed_packet whatever the server (MariaDB's
 * default 16 MB, MySQL's 64 MB, 4 MB on old servers).
 */
const PART_BYTES = 512 * 1024;
/** Rows of parts sent in one INSERT, up to this many bytes (or one part). */
const BATCH_BYTES = 1024 * 1024;

/**
 * The kind's current set: its description, null when the packaged data is in use, undefined when no
 * set was ever chosen (a new database, or one from before the files were kept here).
 */
export async function currentSourceSet(db: Db, kind: SourceKind): Promise<SourceSetInfo | null | undefined> {
  const row = await db
    .selectFrom("catalog_source_current as c")
    .leftJoin("catalog_source_sets as s", (join) => join.onRef("s.kind", "=", "c.kind").onRef("s.digest", "=", "c.digest"))
    .select(["c.digest", "s.version", "s.release_name", "s.digest as set_digest"])
    .where("c.kind", "=", kind)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.digest === null) return null;
  // The pointer always names a stored set (both are written in one transaction).
  if (row.set_digest === null) throw new Error(`catalog_source_current names ${kind} set ${row.digest}, which is not stored`);
  return { kind, digest: row.digest, version: row.version, release: row.release_name };
}

/**
 * The kind's current set with its files, or null / undefined as {@link currentSourceSet}. The files are
 * read in one statement (a consistent view of them) and checked against the digest; a set deleted by
 * stores meanwhile (a reader outpaced by two of them) is noticed that way and the pointer read again.
 */
export async function readCurrentSourceSet(db: Db, kind: SourceKind): Promise<SourceSet | null | undefined> {
  for (let attempt = 1; ; attempt++) {
    const info = await currentSourceSet(db, kind);
    if (!info) return info;
    const files = await readFiles(db, kind, info.digest);
    if (digestOf(files) === info.digest) return { ...info, files };
    if (attempt >= 3) throw new AppError("INVALID_DATASET", `The stored ${kind} files of set ${info.digest} do not match their checksum; load them again (ir21-server import ${kind === "nanpa" ? "nanpa" : "carriers"})`);
  }
}

async function readFiles(db: Db, kind: SourceKind, digest: string): Promise<SourceFiles> {
  const rows = await db
    .selectFrom("catalog_source_files")
    .select(["path", "part", "content"])
    .where("kind", "=", kind)
    .where("digest", "=", digest)
    .orderBy("path")
    .orderBy("part")
    .execute();
  const parts = new Map<string, Buffer[]>();
  for (const row of rows) parts.set(row.path, [...(parts.get(row.path) ?? []), row.content]);
  const files: SourceFiles = new Map();
  for (const [path, list] of parts) {
    try {
      files.set(path, gunzipSync(Buffer.concat(list)));
    } catch {
      // Parts that do not inflate: left out, so the digest check refuses the set.
    }
  }
  return files;
}

/** A set's files as rows: each gzip-compressed, cut into parts of at most {@link PART_BYTES}. */
function rowsOf(set: SourceSet): SourceFileTable[] {
  return [...set.files].flatMap(([path, content]) => {
    const packed = gzipSync(content);
    const parts: SourceFileTable[] = [];
    for (let part = 0; part === 0 || part * PART_BYTES < packed.length; part++) {
      parts.push({ kind: set.kind, digest: set.digest, path, part, content: packed.subarray(part * PART_BYTES, (part + 1) * PART_BYTES) });
    }
    return parts;
  });
}

/**
 * Stores a validated set (unless stored already) and makes it the kind's current one; returns the
 * set that was current before (null: the packaged data; undefined: none chosen).
 */
export async function storeSourceSet(db: Db, clock: Clock, set: SourceSet): Promise<SourceSetInfo | null | undefined> {
  // Compressed before the transaction: a retried attempt does not compress again.
  const rows = rowsOf(set);
  return writeTransaction(db, (trx) => storeIn(trx, set, rows, clock.now().getTime()), { name: `store ${set.kind} files` });
}

async function storeIn(trx: WriteTrx, set: SourceSet, rows: SourceFileTable[], now: number): Promise<SourceSetInfo | null | undefined> {
  const previous = await pointTo(trx, set.kind, set.digest, now);
  const created = await insertUnlessDuplicate(
    trx,
    trx.insertInto("catalog_source_sets").values({
      kind: set.kind,
      digest: set.digest,
      version: set.version,
      release_name: set.release,
      files: set.files.size,
      bytes: [...set.files.values()].reduce((sum, content) => sum + content.length, 0),
      stored_at: now,
    }),
  );
  // Same digest, same files: a set stored before (and kept) is complete already.
  if (created) {
    for (let i = 0; i < rows.length; ) {
      const batch: SourceFileTable[] = [];
      let bytes = 0;
      while (i < rows.length && (batch.length === 0 || bytes + rows[i]!.content.length <= BATCH_BYTES)) {
        bytes += rows[i]!.content.length;
        batch.push(rows[i++]!);
      }
      await trx.insertInto("catalog_source_files").values(batch).execute();
    }
  }
  await prune(trx, set.kind, [set.digest, ...(previous ? [previous.digest] : [])]);
  return previous;
}

/** Goes back to the packaged data for this kind; returns the set that was current before. */
export async function clearSourceSet(db: Db, clock: Clock, kind: SourceKind): Promise<SourceSetInfo | null | undefined> {
  const now = clock.now().getTime();
  return writeTransaction(
    db,
    async (trx) => {
      const previous = await pointTo(trx, kind, null, now);
      await prune(trx, kind, previous ? [previous.digest] : []);
      return previous;
    },
    { name: `clear ${kind} files` },
  );
}

/**
 * Stores a set found in an older version's DATA_DIR as the kind's current one, unless a set (or the
 * packaged data) was chosen meanwhile: that choice stays. True when this set became current.
 */
export async function adoptSourceSet(db: Db, clock: Clock, set: SourceSet): Promise<boolean> {
  const rows = rowsOf(set);
  const now = clock.now().getTime();
  return writeTransaction(
    db,
    async (trx) => {
      // Claims the pointer: a concurrent adopter's or store's row wins (duplicate key), and stays.
      if (!(await insertUnlessDuplicate(trx, trx.insertInto("catalog_source_current").values({ kind: set.kind, digest: null, changed_at: now })))) return false;
      await storeIn(trx, set, rows, now);
      return true;
    },
    { name: `adopt ${set.kind} files` },
  );
}

/**
 * Points the kind at `digest` (creating its row on first use) and returns what it named before. The
 * row is read with a lock and written by every store, so stores take turns: a row lock on one server,
 * a certification conflict (1213, retried by writeTransaction) between Galera nodes, SQLite's single
 * writer (a stale read there fails the write with SQLITE_BUSY_SNAPSHOT, retried too).
 */
async function pointTo(trx: WriteTrx, kind: SourceKind, digest: string | null, now: number): Promise<SourceSetInfo | null | undefined> {
  const read = () => forUpdate(trx, trx.selectFrom("catalog_source_current").select("digest").where("kind", "=", kind)).executeTakeFirst();
  let before = await read();
  if (!before) {
    if (await insertUnlessDuplicate(trx, trx.insertInto("catalog_source_current").values({ kind, digest, changed_at: now }))) return undefined;
    // Created by a concurrent transaction that committed meanwhile: read it as any other.
    before = await read();
  }
  await trx.updateTable("catalog_source_current").set({ digest, changed_at: now }).where("kind", "=", kind).execute();
  if (!before || before.digest === null) return before ? null : undefined;
  const set = await trx.selectFrom("catalog_source_sets").select(["version", "release_name"]).where("kind", "=", kind).where("digest", "=", before.digest).executeTakeFirst();
  return { kind, digest: before.digest, version: set?.version ?? null, release: set?.release_name ?? null };
}

/** Deletes the kind's sets other than those named. */
async function prune(trx: WriteTrx, kind: SourceKind, keep: string[]): Promise<void> {
  const stale = (table: "catalog_source_files" | "catalog_source_sets") =>
    trx
      .deleteFrom(table)
      .where("kind", "=", kind)
      .$if(keep.length > 0, (q) => q.where("digest", "not in", keep))
      .execute();
  await stale("catalog_source_files");
  await stale("catalog_source_sets");
}
