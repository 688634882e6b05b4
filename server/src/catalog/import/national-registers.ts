import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { unzipSync } from "fflate";
import type { Clock } from "../../clock.ts";
import type { SourceDescriptor } from "../../contract/catalog.ts";
import type { Db } from "../../db/db.ts";
import { AppError } from "../../errors.ts";
import { PACKAGED_REGISTERS } from "../../package-files.ts";
import { digestOf } from "./importers/libphonenumber-files.ts";
import { readRegister, readRegisters, REGISTERS, type RegisterFile, type RegisterId } from "./registers/index.ts";
import { clearSourceSet, readCurrentSourceSet, storeSourceSet, type SourceKind } from "./source-sets.ts";

/**
 * The national numbering registers as the catalogue uses them (docs/catalog.md "National registers"):
 * which register families there are, what each may do (ship with ir21 or be loaded by the operator),
 * which files are in use, and their sources' descriptions. The readers (registers/) turn bytes into
 * blocks; register-records.ts turns blocks into catalogue records.
 *
 * A family is one regulator's publication, whose files are used together: Ofcom's S3…S9, ARCEP's
 * MAJNUM with the companion files naming its operator codes. The files in use are, per family, the
 * operator's (`ir21-server import registers`, kept in the database for every instance, source-sets.ts)
 * or else, where the licence allows it, the copy packaged with ir21 (server/data/registers).
 */

export type RegisterFamilyId = "ca-cnac" | "us-nanpa-npa" | "gb-ofcom" | "ru-rossvyaz" | "fr-arcep" | "intl-mcc-mnc-list" | "intl-itu-e212";

export interface RegisterFamily {
  id: RegisterFamilyId;
  /** The register's country. */
  country: string;
  registers: readonly RegisterId[];
  publisher: string;
  /** SPDX id, or LicenseRef- when the terms are the publisher's own (docs/catalog.md "Licences"). */
  license: string;
  /** What must travel with the data; `{date}` is the file's date, `{title}` the file's title. */
  attribution: string;
  /** Where an operator downloads the current files. */
  url: string;
  /** How often the publisher refreshes the files, in days: past it the source is stale. */
  refreshDays: number;
  /** May ir21 redistribute it: then its newest files are packaged and used until an operator loads newer ones. */
  packaged: boolean;
  /**
   * The prefix an operator's register identifier gets in the ids of the operators made from it
   * (`ca.ocn-4727`, `ru.inn-7743895280`, `fr.arcep-frte`, `gb.ofcom-ee-limited`).
   */
  operatorIdPrefix: string;
}

/** Every family, with the terms docs/catalog.md "Licences" established (its sources quoted there). */
export const REGISTER_FAMILIES: readonly RegisterFamily[] = [
  {
    id: "ca-cnac",
    country: "CA",
    registers: ["ca-cnac-co-codes"],
    publisher: "CNAC (Canadian Numbering Administrator)",
    license: "LicenseRef-CNAC-terms-unknown",
    attribution: "Central office code status (COCodeStatus_ALL) of {date}, published by the Canadian Numbering Administrator (CNAC), cnac.ca; loaded by this installation's operator.",
    url: "https://cnac.ca/data/COCodeStatus_ALL.zip",
    refreshDays: 7,
    packaged: false,
    operatorIdPrefix: "ocn",
  },
  {
    id: "us-nanpa-npa",
    country: "US",
    registers: ["us-nanpa-npa"],
    publisher: "NANPA (North American Numbering Plan Administrator)",
    license: "LicenseRef-NANPA-terms-unknown",
    attribution: "Area code (NPA) report of {date}, published by the North American Numbering Plan Administrator (NANPA); loaded by this installation's operator.",
    url: "https://reports.nanpa.com/public/npa_report.csv",
    refreshDays: 31,
    packaged: false,
    operatorIdPrefix: "nanpa",
  },
  {
    id: "gb-ofcom",
    country: "GB",
    registers: ["gb-ofcom-s3", "gb-ofcom-s5", "gb-ofcom-s7", "gb-ofcom-s8", "gb-ofcom-s9"],
    publisher: "Ofcom",
    license: "LicenseRef-Ofcom-copyright",
    attribution: "© Ofcom copyright. {title}, downloaded {date} from https://www.ofcom.org.uk/phones-and-broadband/phone-numbers/numbering-data; reproduced in another format.",
    url: "https://www.ofcom.org.uk/phones-and-broadband/phone-numbers/numbering-data",
    refreshDays: 14,
    packaged: true,
    operatorIdPrefix: "ofcom",
  },
  {
    id: "ru-rossvyaz",
    country: "RU",
    registers: ["ru-rossvyaz-def"],
    publisher: "Ministry of Digital Development of the Russian Federation (formerly Rossvyaz)",
    license: "LicenseRef-Minsvyaz-opendata-terms-unknown",
    attribution: "Register of the numbering resource (DEF-9xx) downloaded {date} from opendata.digital.gov.ru, Ministry of Digital Development of the Russian Federation; loaded by this installation's operator.",
    url: "https://opendata.digital.gov.ru/downloads/DEF-9xx.csv",
    refreshDays: 14,
    packaged: false,
    operatorIdPrefix: "inn",
  },
  {
    id: "fr-arcep",
    country: "FR",
    registers: [
      "fr-arcep-majnum",
      "fr-arcep-majnfb",
      "fr-arcep-gelnum",
      "fr-arcep-majrio",
      "fr-arcep-majmnc",
      "fr-arcep-majporta",
      "fr-arcep-majcpsn",
      "fr-arcep-majcpsi",
      "fr-arcep-majr1r2",
      "fr-arcep-majsdt",
    ],
    publisher: "ARCEP",
    license: "etalab-2.0",
    attribution: "Arcep, Ressources en numérotation téléphonique ({title}), https://extranet.arcep.fr/uploads/, mise à jour du {date}; converted by ir21 into its catalogue's records.",
    url: "https://extranet.arcep.fr/uploads/MAJNUM.csv",
    refreshDays: 14,
    packaged: true,
    operatorIdPrefix: "arcep",
  },
  // The MCC/MNC lists feed the networks (network-records.ts), not number holders; `country` is ZZ
  // (international). The newer community list ships (CC BY-SA 4.0, like the package's); the ITU's
  // list is the ITU's own (all rights reserved): loaded by the operator only.
  {
    id: "intl-mcc-mnc-list",
    country: "ZZ",
    registers: ["intl-mcc-mnc-list"],
    publisher: "Wikipedia contributors, as collected in the mcc-mnc-list JSON shape",
    license: "CC-BY-SA-4.0",
    attribution:
      "Networks: 'Mobile country code' and 'Mobile Network Codes in ITU region 2xx … 7xx' lists by Wikipedia contributors (https://en.wikipedia.org/wiki/Mobile_country_code), CC BY-SA 4.0, list of {date}, changed by ir21 (merged, normalised). Derived data is shared under the same licence.",
    url: "https://github.com/cavoq/mcc-mnc-list",
    refreshDays: 180,
    packaged: true,
    operatorIdPrefix: "mccmnc",
  },
  {
    id: "intl-itu-e212",
    country: "ZZ",
    registers: ["intl-itu-e212"],
    publisher: "ITU (Operational Bulletin annex, E.212)",
    license: "LicenseRef-ITU-all-rights-reserved",
    attribution: "Mobile network codes: ITU-T E.212 list (ITU Operational Bulletin) as of {date}, © ITU; loaded by this installation's operator.",
    url: "https://www.itu.int/pub/T-SP-E.212B",
    refreshDays: 365,
    packaged: false,
    operatorIdPrefix: "itu",
  },
];

const familyOfRegister = new Map(REGISTER_FAMILIES.flatMap((family) => family.registers.map((register) => [register, family] as const)));

/** The family a register file belongs to; null for a register no family holds. */
export const familyOf = (register: RegisterId | null): RegisterFamily | null => (register ? (familyOfRegister.get(register) ?? null) : null);

/** One register file in use, read. */
export interface RegisterInput {
  family: RegisterFamily;
  file: RegisterFile & { register: RegisterId };
  /** The file's name as loaded (or packaged). */
  name: string;
  sha256: string;
  /** The file's date: its own, else the one stated when it was loaded (or packaged). */
  date: string;
  origin: "packaged" | "loaded";
}

/** The source id of a register file's records: `register:gb-ofcom-s7`. */
export const registerSourceId = (register: RegisterId) => `register:${register}`;
/** Whether a dataset source is a register file (its id made by registerSourceId). */
export const isRegisterSource = (sourceId: string) => sourceId.startsWith("register:");

/** A register file as a source of the dataset (`/v1/meta`, exports, the snapshot carry it). */
export function registerSource(input: RegisterInput, coverage: string[]): SourceDescriptor {
  const info = REGISTERS[input.file.register];
  const fill = (text: string) => text.replaceAll("{date}", input.date).replaceAll("{title}", info.title);
  return {
    id: registerSourceId(input.file.register),
    name: `${info.title} (${input.family.publisher})`,
    package: null,
    version: input.date,
    files: [{ path: input.name, sha256: input.sha256 }],
    license: input.family.license,
    attribution: fill(input.family.attribution),
    url: input.family.url,
    published_at: `${input.date}T00:00:00.000Z`,
    effective_at: null,
    sample: false,
    refresh_interval_days: input.family.refreshDays,
    coverage,
    origin: input.origin,
  };
}

// --- reading what an operator gives ------------------------------------------------------------------

/** A file or every file of a folder (not recursive), with its name. */
function inputFiles(path: string): Array<{ name: string; bytes: Buffer }> {
  if (!existsSync(path)) throw new AppError("INVALID_DATASET", `${path}: no such file or folder`);
  if (statSync(path).isDirectory()) {
    return readdirSync(path)
      .filter((name) => !name.startsWith(".") && statSync(join(path, name)).isFile() && !/\.md$/i.test(name))
      .sort()
      .map((name) => ({ name, bytes: readFileSync(join(path, name)) }));
  }
  return [{ name: basename(path), bytes: readFileSync(path) }];
}

export interface LoadOptions {
  /** Read every file as this register (skips recognition). */
  format?: RegisterId;
  /** The date of files that carry none of their own (Ofcom's, the Russian register's): the day they were downloaded. */
  date?: string;
}

/**
 * Reads what `ir21-server import registers` is given (files, folders, zips): every file must be a
 * register of a family (recognised by its header or `format`) with a date (its own, or `date`), or the
 * whole command is refused with every problem listed and nothing stored. Returns each file read, with
 * its bytes as given (a zip's member as its own file: stored once, readable alone).
 */
export function readOperatorFiles(paths: readonly string[], options: LoadOptions = {}): Array<{ input: Omit<RegisterInput, "origin">; bytes: Buffer }> {
  if (options.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(options.date)) throw new AppError("INVALID_DATASET", `--date ${options.date}: give the download's date as YYYY-MM-DD`);
  const problems: string[] = [];
  const read: Array<{ input: Omit<RegisterInput, "origin">; bytes: Buffer }> = [];
  for (const path of paths) {
    for (const given of inputFiles(path)) {
      for (const file of readRegisters(given.bytes, { fileName: given.name, format: options.format })) {
        const name = file.report.file ?? given.name;
        if (file.report.refused) {
          problems.push(`${name}: ${file.report.refused}`);
          continue;
        }
        const family = familyOf(file.register);
        if (!family || !file.register) {
          problems.push(`${name}: ${file.register ?? "unknown"} is not a register ir21 imports`);
          continue;
        }
        const date = file.fileDate ?? options.date ?? null;
        if (!date) {
          problems.push(`${name}: the file carries no date of its own; give the day it was downloaded: --date YYYY-MM-DD`);
          continue;
        }
        // A zip's member is stored as its own file, so a later read needs no zip.
        const bytes = name.includes(":") ? Buffer.from(memberBytes(given.bytes, name.slice(name.indexOf(":") + 1))) : given.bytes;
        read.push({ input: { family, file: file as RegisterInput["file"], name: basename(name.replace(/^.*:/, "")), sha256: createHash("sha256").update(bytes).digest("hex"), date }, bytes });
      }
    }
  }
  if (read.length === 0 && problems.length === 0) problems.push("no register file given");
  const seen = new Map<RegisterId, string>();
  for (const { input } of read) {
    const other = seen.get(input.file.register);
    if (other) problems.push(`${input.name}: the same register (${input.file.register}) as ${other}; give one file per register`);
    seen.set(input.file.register, input.name);
  }
  if (problems.length) {
    throw new AppError("INVALID_DATASET", `Register import refused, nothing was stored. ${problems.length} problem(s):\n${problems.slice(0, 50).map((p) => `  - ${p}`).join("\n")}`);
  }
  return read;
}

/** One member of a zip readRegisters already opened once, under its limits. */
function memberBytes(zip: Buffer, member: string): Uint8Array {
  return unzipSync(zip, { filter: (entry) => entry.name === member })[member]!;
}

// --- stored per family ----------------------------------------------------------------------------

const kindOf = (family: RegisterFamily): SourceKind => `register:${family.id}`;
/** The stored set's record of each file's date (files without one of their own get the stated one). */
const DATES_FILE = "dates.json";

/**
 * Stores the files given for their families: each family's set in use is replaced by one holding its
 * earlier files and these (a file of a register replaces that register's earlier file), so loading a
 * newer MAJNUM keeps the companions loaded before.
 */
export async function storeRegisterFiles(db: Db, clock: Clock, files: ReturnType<typeof readOperatorFiles>): Promise<Array<{ family: RegisterFamilyId; registers: RegisterId[] }>> {
  const stored: Array<{ family: RegisterFamilyId; registers: RegisterId[] }> = [];
  for (const family of REGISTER_FAMILIES) {
    const mine = files.filter((f) => f.input.family.id === family.id);
    if (mine.length === 0) continue;
    const current = await readCurrentSourceSet(db, kindOf(family));
    const set = new Map<string, Buffer>(current?.files ?? []);
    const dates = JSON.parse(set.get(DATES_FILE)?.toString("utf8") ?? "{}") as Record<string, { file: string; date: string }>;
    for (const { input, bytes } of mine) {
      const earlier = dates[input.file.register];
      if (earlier) set.delete(earlier.file);
      set.set(input.name, bytes);
      dates[input.file.register] = { file: input.name, date: input.date };
    }
    set.set(DATES_FILE, Buffer.from(JSON.stringify(dates, null, 2)));
    const version = Object.values(dates)
      .map((d) => d.date)
      .sort()
      .at(-1)!;
    await storeSourceSet(db, clock, { kind: kindOf(family), digest: digestOf(set), version, release: null, files: set });
    stored.push({ family: family.id, registers: mine.map((f) => f.input.file.register) });
  }
  return stored;
}

/** Goes back to the packaged files of a family (or none, for one ir21 may not ship); returns whether files were loaded. */
export async function resetRegisterFamily(db: Db, clock: Clock, family: RegisterFamilyId): Promise<boolean> {
  const found = REGISTER_FAMILIES.find((f) => f.id === family);
  if (!found) throw new AppError("INVALID_DATASET", `unknown register family ${family}; known: ${REGISTER_FAMILIES.map((f) => f.id).join(", ")}`);
  return Boolean(await clearSourceSet(db, clock, kindOf(found)));
}

// --- in use ---------------------------------------------------------------------------------------

interface PackagedEntry {
  path: string;
  register: RegisterId;
  date: string;
  sha256: string;
  stored: string | null;
  compression?: "br" | "gz";
}

/** The packaged copies (server/data/registers/manifest.json) of the families ir21 may ship. */
function packagedFiles(): Array<{ entry: PackagedEntry; bytes: () => Buffer }> {
  const dir = fileURLToPath(PACKAGED_REGISTERS);
  const manifestPath = join(dir, "manifest.json");
  if (!existsSync(manifestPath)) return [];
  const entries = (JSON.parse(readFileSync(manifestPath, "utf8")) as { files: PackagedEntry[] }).files;
  return entries
    .filter((entry) => entry.stored !== null && familyOf(entry.register)?.packaged)
    .map((entry) => ({
      entry,
      bytes: () => {
        const packed = readFileSync(join(dir, entry.stored!));
        return entry.compression === "gz" ? gunzipSync(packed) : brotliDecompressSync(packed);
      },
    }));
}

/** The newest packaged file of each register (the manifest may hold several versions for tests). */
function newestPackaged(): Map<RegisterId, { entry: PackagedEntry; bytes: () => Buffer }> {
  const newest = new Map<RegisterId, { entry: PackagedEntry; bytes: () => Buffer }>();
  for (const file of packagedFiles()) {
    const seen = newest.get(file.entry.register);
    if (!seen || seen.entry.date < file.entry.date) newest.set(file.entry.register, file);
  }
  return newest;
}

/**
 * Every register file in use, read: per family the operator's loaded set, else the packaged copies
 * (for a family ir21 may ship), else none.
 */
export async function registerFilesInUse(db: Db | null): Promise<RegisterInput[]> {
  const inputs: RegisterInput[] = [];
  const packaged = newestPackaged();
  for (const family of REGISTER_FAMILIES) {
    const loaded = db ? await readCurrentSourceSet(db, kindOf(family)) : null;
    if (loaded) {
      const dates = JSON.parse(loaded.files.get(DATES_FILE)?.toString("utf8") ?? "{}") as Record<string, { file: string; date: string }>;
      for (const [register, { file: name, date }] of Object.entries(dates)) {
        const bytes = loaded.files.get(name);
        if (!bytes) throw new AppError("INVALID_DATASET", `the stored ${family.id} register set lacks ${name}; load the files again (ir21-server import registers)`);
        const file = readRegister(bytes, { fileName: name, format: register as RegisterId });
        inputs.push({ family, file: file as RegisterInput["file"], name, sha256: createHash("sha256").update(bytes).digest("hex"), date, origin: "loaded" });
      }
      continue;
    }
    if (!family.packaged) continue;
    for (const register of family.registers) {
      const copy = packaged.get(register);
      if (!copy) continue;
      const bytes = copy.bytes();
      const name = basename(copy.entry.path);
      const file = readRegister(bytes, { fileName: name, format: register });
      inputs.push({ family, file: file as RegisterInput["file"], name, sha256: copy.entry.sha256, date: file.fileDate ?? copy.entry.date, origin: "packaged" });
    }
  }
  return inputs;
}
