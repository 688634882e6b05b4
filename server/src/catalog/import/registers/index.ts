import { unzipSync } from "fflate";
import { arcepFrozenReader, arcepNumbersReader } from "./arcep.ts";
import { arcepNetworksReader, arcepPortabilityReader, arcepResourcesReader } from "./arcep-companions.ts";
import { cnacReader } from "./cnac.ts";
import { Collector } from "./collect.ts";
import { REGISTERS } from "./info.ts";
import { ituE212Reader, mccMncListReader } from "./mcc-mnc.ts";
import { nanpaNpaReader } from "./nanpa-npa.ts";
import { ofcomReader } from "./ofcom.ts";
import type { RegisterReader } from "./reader.ts";
import { rossvyazReader } from "./rossvyaz.ts";
import { headLines } from "./text.ts";
import type { ReadOptions, RegisterFile, RegisterId, TextEncodingName } from "./types.ts";

/**
 * Readers for national numbering registers and MCC/MNC lists (docs/registers.md): bytes in, a
 * register-neutral `RegisterFile` out, with an import report that lists every row not kept. No
 * HTTP, no database, nothing of the catalogue: the catalogue's import pipeline builds on this.
 */

export { REGISTERS } from "./info.ts";
export * from "./types.ts";

/** Every reader; recognition tries them in this order (the most specific headers first). */
const READERS: readonly RegisterReader[] = [
  cnacReader,
  nanpaNpaReader,
  ofcomReader,
  rossvyazReader,
  arcepNumbersReader,
  arcepFrozenReader,
  arcepResourcesReader,
  arcepPortabilityReader,
  arcepNetworksReader,
  mccMncListReader,
  ituE212Reader,
];

/** Lines of a file's start the recognisers see (header, date line, first rows for shared headers). */
const HEAD_LINES = 40;

/** Limits on a zip's members (the CNAC zip holds one 2.6 MB file): against a zip bomb or a wrong archive. */
export const ZIP_LIMITS = { members: 64, memberBytes: 256 * 1024 * 1024, totalBytes: 512 * 1024 * 1024 };

const isZip = (bytes: Uint8Array) => bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 0x03 || bytes[2] === 0x05) && (bytes[3] === 0x04 || bytes[3] === 0x06);

/**
 * Which register a file is, from its header (and its name where registers share a header: Ofcom's
 * S3…S9 by `S7` in the name, ARCEP's companions by `MAJRIO` etc., else the first rows' content).
 * Null when no reader knows the header. A zip is recognised by its single member.
 *
 * @example
 * detectRegister(readFileSync("S7.csv"), "S7.csv") // "gb-ofcom-s7"
 */
export function detectRegister(bytes: Uint8Array, fileName?: string): RegisterId | null {
  try {
    if (isZip(bytes)) {
      const members = openZip(bytes);
      return "reason" in members || members.length !== 1 ? null : detectRegister(members[0]!.bytes, members[0]!.name);
    }
    return recognise(bytes, fileName ?? null)?.id ?? null;
  } catch {
    return null;
  }
}

function recognise(bytes: Uint8Array, fileName: string | null): { id: RegisterId; reader: RegisterReader } | null {
  const decoded = new Map<TextEncodingName, string[]>();
  for (const reader of READERS) {
    for (const encoding of reader.headerEncodings) {
      let head = decoded.get(encoding);
      if (!head) decoded.set(encoding, (head = headLines(bytes, encoding, HEAD_LINES)));
      const id = reader.recognise(head, fileName);
      if (id) return { id, reader };
    }
  }
  return null;
}

/**
 * Reads one register file: a CSV or JSON file, or a zip holding one (CNAC publishes
 * `COCodeStatus_ALL.zip`). Never throws: a file it cannot read comes back with `report.refused`
 * saying why and nothing in it. The register is recognised by the header; `options.format` forces
 * one (a header that does not fit it refuses the file).
 *
 * @example
 * const file = readRegister(readFileSync("COCodeStatus_ALL.zip"), { fileName: "COCodeStatus_ALL.zip" });
 * file.register;               // "ca-cnac-co-codes"
 * file.fileDate;               // "2025-09-12"
 * file.blocks[0].prefix;       // "1204200"
 * file.report.rows;            // { unit: "line", read: 44002, kept: 44000, listed: 2 }
 */
export function readRegister(bytes: Uint8Array, options: ReadOptions = {}): RegisterFile {
  const file = options.fileName ?? null;
  const recognisedBy = options.format ? "format" : "header";
  try {
    if (isZip(bytes)) {
      const members = openZip(bytes);
      if ("reason" in members) return Collector.refused(file, options.format ?? null, recognisedBy, null, members.reason);
      if (members.length !== 1) {
        return Collector.refused(file, options.format ?? null, recognisedBy, null, `the zip holds ${members.length} files (${members.map((m) => m.name).join(", ") || "none"}); readRegisters reads each`);
      }
      const member = members[0]!;
      return readOne(member.bytes, { ...options, fileName: `${file ?? "zip"}:${member.name}` }, member.name);
    }
    return readOne(bytes, options, file);
  } catch (error) {
    // No reader throws on any input the tests have found (fuzzed bytes, truncations, wrong
    // encodings, other registers forced); this keeps a bug from taking the caller down.
    return Collector.refused(file, options.format ?? null, recognisedBy, null, `internal error while reading: ${(error as Error)?.message ?? String(error)}`);
  }
}

/**
 * Reads every file of an input: one file, or each member of a zip (folders inside it skipped),
 * each as `readRegister` would.
 *
 * @example
 * for (const file of readRegisters(readFileSync("arcep.zip"), { fileName: "arcep.zip" })) console.log(file.register, file.report.rows);
 */
export function readRegisters(bytes: Uint8Array, options: ReadOptions = {}): RegisterFile[] {
  if (!isZip(bytes)) return [readRegister(bytes, options)];
  const file = options.fileName ?? null;
  try {
    const members = openZip(bytes);
    if ("reason" in members) return [Collector.refused(file, options.format ?? null, options.format ? "format" : "header", null, members.reason)];
    return members.map((m) => readRegister(m.bytes, { ...options, fileName: `${file ?? "zip"}:${m.name}` }));
  } catch (error) {
    return [Collector.refused(file, options.format ?? null, options.format ? "format" : "header", null, `internal error while reading: ${(error as Error)?.message ?? String(error)}`)];
  }
}

function readOne(bytes: Uint8Array, options: ReadOptions, nameHint: string | null): RegisterFile {
  const file = options.fileName ?? null;
  if (bytes.length === 0) return Collector.refused(file, options.format ?? null, options.format ? "format" : "header", null, "the file is empty");
  if (options.format) {
    const reader = READERS.find((r) => r.ids.includes(options.format!));
    if (!reader) return Collector.refused(file, options.format, "format", null, `unknown format "${options.format}"; known: ${Object.keys(REGISTERS).join(", ")}`);
    return reader.read({ bytes, file, register: options.format, recognisedBy: "format" });
  }
  const found = recognise(bytes, nameHint);
  if (!found) return Collector.refused(file, null, "header", null, "no register recognised by the file's header (give `format` to force one)");
  return found.reader.read({ bytes, file, register: found.id, recognisedBy: "header" });
}

interface ZipMember {
  name: string;
  bytes: Uint8Array;
}

function openZip(bytes: Uint8Array): ZipMember[] | { reason: string } {
  let count = 0;
  let total = 0;
  let refused: string | null = null;
  let unzipped: Record<string, Uint8Array>;
  try {
    unzipped = unzipSync(bytes, {
      filter(member) {
        if (member.name.endsWith("/")) return false;
        count++;
        total += member.originalSize;
        if (count > ZIP_LIMITS.members) refused ??= `the zip holds more than ${ZIP_LIMITS.members} files`;
        else if (member.originalSize > ZIP_LIMITS.memberBytes) refused ??= `${member.name} unpacks to ${member.originalSize} bytes, over ${ZIP_LIMITS.memberBytes}`;
        else if (total > ZIP_LIMITS.totalBytes) refused ??= `the zip unpacks to more than ${ZIP_LIMITS.totalBytes} bytes`;
        return refused === null;
      },
    });
  } catch (error) {
    return { reason: `not a readable zip: ${(error as Error)?.message ?? String(error)}` };
  }
  if (refused) return { reason: refused };
  return Object.entries(unzipped).map(([name, content]) => ({ name, bytes: content }));
}
