import { createHash } from "node:crypto";
import { closeSync, createReadStream, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { createGunzip } from "node:zlib";
import { Unzip, UnzipInflate } from "fflate";
import { extract } from "tar-stream";
import { AppError } from "../../../errors.ts";

/**
 * Google libphonenumber's resource files as an operator downloads them (docs/catalog.md "Carrier data
 * from a libphonenumber release"): the repository root, its `resources/` folder, or a release archive
 * (`libphonenumber-9.0.20.tar.gz`/`.tgz`/`.zip` from GitHub, holding `libphonenumber-9.0.20/resources/…`).
 *
 * Kept: `resources/carrier/<en|zh>/<cc>.txt`, `resources/geocoding/<en|zh>/<cc>.txt` and
 * `resources/timezones/map_data.txt` — the languages this service answers in; other languages and
 * everything else in the archive are skipped unread (the archive is streamed, not unpacked).
 *
 * Google's text format: `prefix|value` per line, the prefix being E.164 digits (calling code
 * included: `86130|China Unicom`, `8610|Beijing`, `1201|America/New_York`); `#` comment lines and
 * blank lines; time zones `prefix|Zone1&Zone2`.
 */

/** The languages kept (the catalogue's `range_holder` and `range_holder_local`, the lookup's `location.en|zh`). */
export const RESOURCE_LANGUAGES = ["en", "zh"] as const;

/**
 * Limits against a corrupt or hostile archive (a zip bomb, a wrong file): no real release comes near
 * them (v9.0.35: resources/ 26 MB, the kept files 10.7 MB, the largest geocoding/zh/86.txt 3.9 MB).
 */
export const RESOURCE_LIMITS = {
  /** One kept file. */
  fileBytes: 32 * 1024 * 1024,
  /** All kept files together. */
  keptBytes: 256 * 1024 * 1024,
  /** Everything the archive unpacks to, kept or not (the whole repository, Java and C++ included). */
  unpackedBytes: 2 * 1024 * 1024 * 1024,
  /** Entries of the archive. */
  entries: 200_000,
};

/** A kept file, by its path under `resources/` (`carrier/en/86.txt`). */
export type ResourceFiles = Map<string, Buffer>;

export interface ResourceInput {
  files: ResourceFiles;
  /** The release the input names: its archive or folder name (`libphonenumber-9.0.20`), else pom.xml's `<version>`. */
  release: string | null;
}

const KEPT = /^(?:(carrier|geocoding)\/(en|zh)\/(\d{1,3})\.txt|timezones\/map_data\.txt)$/;
const RELEASE_NAME = /^libphonenumber-(\d+\.\d+\.\d+)(?:\.(?:tar\.gz|tgz|zip))?$/i;

const refuse = (problems: string[]) =>
  new AppError(
    "INVALID_DATASET",
    `libphonenumber carrier import refused, nothing was changed. ${problems.length} problem(s):\n${problems.slice(0, 50).map((p) => `  - ${p}`).join("\n")}${problems.length > 50 ? `\n  … and ${problems.length - 50} more` : ""}`,
  );

/**
 * The release version of a libphonenumber checkout's Maven pom: the `<version>` of the project
 * `libphonenumber-parent` (java/pom.xml; `9.0.27` in a release tag, `9.0.36-SNAPSHOT` between
 * releases), not of its `<parent>` or dependencies. Null for another project: the repository's root
 * pom.xml is `libphonenumber-build-parent` 1.0-SNAPSHOT, which says nothing about the data.
 */
export function pomVersion(pom: string): string | null {
  const own = pom
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<parent>[\s\S]*?<\/parent>/g, "")
    .replace(/<(dependencies|dependencyManagement|build|profiles|plugins|reporting|modules)>[\s\S]*?<\/\1>/g, "");
  if (/<artifactId>\s*([^<\s]+)\s*<\/artifactId>/.exec(own)?.[1] !== "libphonenumber-parent") return null;
  return /<version>\s*([^<\s]+)\s*<\/version>/.exec(own)?.[1] ?? null;
}

/** Where a checkout's poms are, the release's first (java/pom.xml), relative to the repository root. */
const POMS = ["java/pom.xml", "pom.xml"];

/**
 * Where an archive entry or file goes: its path under `resources/`, or null when it is not kept.
 * `top` is the archive's single top folder (`libphonenumber-9.0.20/`), if any.
 */
function keptPath(name: string): { top: string | null; path: string } | null {
  const parts = name.split("/");
  const at = parts.indexOf("resources");
  if (at < 0 || at > 1) return null;
  const path = parts.slice(at + 1).join("/");
  return KEPT.test(path) ? { top: at === 1 ? parts[0]! : null, path } : null;
}

/** An entry name that could leave the folder it is unpacked into (never written anywhere here, refused all the same). */
function unsafeName(name: string): boolean {
  return name.includes("\0") || name.includes("\\") || name.startsWith("/") || /^[a-zA-Z]:/.test(name) || name.split("/").some((p) => p === "..");
}

class Collector {
  readonly files: ResourceFiles = new Map();
  readonly problems: string[] = [];
  readonly tops = new Set<string>();
  /** The checkout's poms by path under the top folder (POMS). */
  readonly poms = new Map<string, Buffer>();
  kept = 0;
  unpacked = 0;
  entries = 0;
  constructor(readonly label: string) {}

  /** Whether to read an entry's content; records problems for unsafe or oversized entries. */
  wants(name: string, size: number | null, type: "file" | "directory" | "other"): { path: string } | { pom: string } | null {
    this.entries++;
    if (this.entries > RESOURCE_LIMITS.entries) {
      if (this.entries === RESOURCE_LIMITS.entries + 1) this.problems.push(`${this.label}: more than ${RESOURCE_LIMITS.entries} entries`);
      return null;
    }
    const clean = name.replace(/^\.\//, "");
    if (unsafeName(clean)) {
      this.problems.push(`${this.label}: entry "${name}" points outside the archive (path traversal)`);
      return null;
    }
    if (type === "directory") return null;
    const pom = POMS.find((p) => clean === p || clean.endsWith(`/${p}`) && clean.split("/").length === p.split("/").length + 1);
    if (pom && type === "file" && (size ?? 0) < 1024 * 1024) return { pom };
    const kept = keptPath(clean);
    if (!kept) return null;
    if (type !== "file") {
      this.problems.push(`${this.label}: entry "${name}" is a link or special file, not a regular file`);
      return null;
    }
    if (size !== null && size > RESOURCE_LIMITS.fileBytes) {
      this.problems.push(`${this.label}: entry "${name}" is ${size} bytes, more than ${RESOURCE_LIMITS.fileBytes}`);
      return null;
    }
    this.tops.add(kept.top ?? "");
    if (this.files.has(kept.path)) {
      this.problems.push(`${this.label}: more than one resources/${kept.path} (one resources folder per archive)`);
      return null;
    }
    return { path: kept.path };
  }

  /** Counts unpacked bytes; false once a limit is passed (the caller stops reading). */
  count(bytes: number, kept: boolean): boolean {
    this.unpacked += bytes;
    if (kept) this.kept += bytes;
    if (this.unpacked > RESOURCE_LIMITS.unpackedBytes) return this.fail(`${this.label}: unpacks to more than ${RESOURCE_LIMITS.unpackedBytes} bytes`);
    if (this.kept > RESOURCE_LIMITS.keptBytes) return this.fail(`${this.label}: the kept resource files exceed ${RESOURCE_LIMITS.keptBytes} bytes`);
    return true;
  }

  failed = false;
  private fail(problem: string): false {
    if (!this.failed) this.problems.push(problem);
    this.failed = true;
    return false;
  }

  release(archiveName: string): string | null {
    const named = RELEASE_NAME.exec(archiveName)?.[1];
    if (named) return named;
    const tops = [...this.tops];
    if (tops.length === 1) {
      const top = RELEASE_NAME.exec(tops[0]!)?.[1];
      if (top) return top;
    }
    for (const path of POMS) {
      const version = this.poms.has(path) ? pomVersion(this.poms.get(path)!.toString("utf8")) : null;
      if (version) return version;
    }
    return null;
  }
}

async function readTarGz(path: string, collector: Collector): Promise<void> {
  const tar = extract();
  const done = new Promise<void>((resolveDone, reject) => {
    tar.on("entry", (header, stream, next) => {
      const type = header.type === "file" || header.type === "contiguous-file" ? "file" : header.type === "directory" ? "directory" : "other";
      const wanted = collector.wants(header.name, header.size ?? null, type);
      const chunks: Buffer[] = [];
      let size = 0;
      let within = true;
      stream.on("data", (data: unknown) => {
        const chunk = data as Buffer;
        if (!within) return;
        size += chunk.length;
        within = collector.count(chunk.length, wanted !== null) && (wanted === null || size <= RESOURCE_LIMITS.fileBytes);
        if (!within && wanted !== null && size > RESOURCE_LIMITS.fileBytes) collector.problems.push(`${collector.label}: entry "${header.name}" is larger than ${RESOURCE_LIMITS.fileBytes} bytes`);
        if (within && wanted) chunks.push(chunk);
      });
      stream.on("end", () => {
        if (within && wanted && "pom" in wanted) collector.poms.set(wanted.pom, Buffer.concat(chunks));
        else if (within && wanted && "path" in wanted) collector.files.set(wanted.path, Buffer.concat(chunks));
        if (collector.failed) return reject(new StopReading());
        next();
      });
      stream.on("error", reject);
    });
    tar.on("finish", () => resolveDone());
    tar.on("error", reject);
  });
  const gunzip = createGunzip();
  const input = createReadStream(path);
  input.on("error", (e) => tar.destroy(e));
  gunzip.on("error", (e) => tar.destroy(e));
  input.pipe(gunzip).pipe(tar);
  try {
    await done;
  } catch (error) {
    input.destroy();
    gunzip.destroy();
    tar.destroy();
    if (error instanceof StopReading) return;
    collector.problems.push(`${collector.label}: not a readable .tar.gz archive (${(error as Error).message})`);
  }
}

class StopReading extends Error {}

/** Whether a file ends with a zip's end-of-central-directory record (a truncated download does not). */
function hasZipDirectory(path: string): boolean {
  const size = statSync(path).size;
  const tail = Math.min(size, 22 + 65_535);
  const buffer = Buffer.alloc(tail);
  const fd = openSync(path, "r");
  try {
    readSync(fd, buffer, 0, tail, size - tail);
  } finally {
    closeSync(fd);
  }
  return buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) >= 0;
}

async function readZip(path: string, collector: Collector): Promise<void> {
  if (!hasZipDirectory(path)) {
    collector.problems.push(`${collector.label}: not a readable .zip archive (no central directory: truncated or not a zip)`);
    return;
  }
  // fflate's streaming Unzip inflates synchronously inside push(): every entry that is complete has
  // been delivered (final chunk) when push() returns; one still open after the last push was cut short.
  let unfinished = 0;
  let broken: Error | null = null;
  const unzip = new Unzip((file) => {
    const wanted = collector.wants(file.name, file.originalSize ?? null, file.name.endsWith("/") ? "directory" : "file");
    if (!wanted) return;
    unfinished++;
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (error, chunk, final) => {
      if (error) {
        broken ??= error;
        return;
      }
      size += chunk.length;
      if (!collector.count(chunk.length, true) || size > RESOURCE_LIMITS.fileBytes) {
        if (size > RESOURCE_LIMITS.fileBytes) collector.problems.push(`${collector.label}: entry "${file.name}" is larger than ${RESOURCE_LIMITS.fileBytes} bytes`);
        unfinished--;
        file.terminate();
        return;
      }
      chunks.push(chunk);
      if (final) {
        unfinished--;
        const content = Buffer.concat(chunks);
        if ("pom" in wanted) collector.poms.set(wanted.pom, content);
        else collector.files.set(wanted.path, content);
      }
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
      unzip.push(chunk as Uint8Array);
      if (collector.failed || broken) break;
    }
    if (!collector.failed && !broken) {
      unzip.push(new Uint8Array(0), true);
      if (unfinished > 0) broken = new Error(`${unfinished} entry(ies) cut short`);
    }
  } catch (error) {
    broken ??= error as Error;
  }
  if (broken) collector.problems.push(`${collector.label}: not a readable .zip archive (${(broken as Error).message})`);
}

/** A folder: the repository root (holding resources/) or resources/ itself. */
function readFolder(path: string, collector: Collector): string | null {
  const root = existsSync(join(path, "resources")) && statSync(join(path, "resources")).isDirectory() ? join(path, "resources") : path;
  const repoRoot = root === path ? dirname(path) : path;
  for (const kind of ["carrier", "geocoding"]) {
    for (const language of RESOURCE_LANGUAGES) {
      const dir = join(root, kind, language);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir).sort()) {
        const relative = `${kind}/${language}/${name}`;
        if (!KEPT.test(relative)) continue;
        const full = join(dir, name);
        const size = statSync(full).size;
        if (size > RESOURCE_LIMITS.fileBytes) {
          collector.problems.push(`${full}: ${size} bytes, more than ${RESOURCE_LIMITS.fileBytes}`);
          continue;
        }
        collector.files.set(relative, readFileSync(full));
        if (!collector.count(size, true)) return null;
      }
    }
  }
  const zones = join(root, "timezones", "map_data.txt");
  if (existsSync(zones)) collector.files.set("timezones/map_data.txt", readFileSync(zones));
  for (const pom of POMS) if (existsSync(join(repoRoot, pom))) collector.poms.set(pom, readFileSync(join(repoRoot, pom)));
  return basename(repoRoot);
}

/**
 * Reads the kept resource files of a folder or archive into memory, refusing (INVALID_DATASET, every
 * problem listed) a missing path, an unreadable archive, a traversal entry or an oversized one.
 */
export async function readResourceInput(input: string): Promise<ResourceInput> {
  const path = resolve(input);
  if (!existsSync(path)) throw refuse([`${input}: no such file or folder`]);
  const collector = new Collector(input);
  let name = basename(path);
  if (statSync(path).isDirectory()) name = readFolder(path, collector) ?? name;
  else if (/\.(tar\.gz|tgz)$/i.test(path)) await readTarGz(path, collector);
  else if (/\.zip$/i.test(path)) await readZip(path, collector);
  else throw refuse([`${input}: not a folder, .tar.gz, .tgz or .zip`]);
  if (collector.tops.size > 1) collector.problems.push(`${input}: more than one resources folder (${[...collector.tops].map((t) => `${t || "."}/resources`).join(", ")})`);
  if (collector.problems.length) throw refuse(collector.problems);
  return { files: collector.files, release: collector.release(name) };
}

/** One parsed prefix file: prefix (E.164 digits) → value, in file order. */
export function parsePrefixFile(label: string, text: string, problems: string[], check?: { callingCode?: string; zones?: boolean }): Map<string, string> {
  const map = new Map<string, string>();
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line || line.startsWith("#")) continue;
    const bar = line.indexOf("|");
    const prefix = bar < 0 ? line : line.slice(0, bar);
    const value = bar < 0 ? "" : line.slice(bar + 1).trim();
    const where = `${label}:${i + 1}`;
    if (bar < 0 || !/^\d{1,20}$/.test(prefix)) {
      problems.push(`${where}: "${line.slice(0, 60)}" is not prefix|value (digits, then |)`);
      continue;
    }
    if (check?.callingCode && !prefix.startsWith(check.callingCode)) {
      problems.push(`${where}: prefix ${prefix} does not start with the file's calling code ${check.callingCode}`);
      continue;
    }
    if (check?.zones && value.split("&").some((zone) => !/^[A-Za-z][A-Za-z0-9_+\-]*(?:\/[A-Za-z0-9_+\-]+)*$/.test(zone))) {
      problems.push(`${where}: "${value.slice(0, 60)}" is not a list of time zones (Zone1&Zone2)`);
      continue;
    }
    if (map.has(prefix)) {
      problems.push(`${where}: prefix ${prefix} is listed twice`);
      continue;
    }
    map.set(prefix, value);
  }
  return map;
}

/** The calling code of a carrier or geocoding file (`carrier/en/86.txt` → 86). */
export const callingCodeOf = (path: string) => /\/(\d+)\.txt$/.exec(path)?.[1] ?? null;

export interface ResourceSet {
  files: ResourceFiles;
  /** The release (`9.0.20`, `9.0.21-SNAPSHOT`) or, unnamed, `sha256:` and the first 16 hex digits of the content digest. */
  version: string;
  /** The release when the input named one (null for a digest version). */
  release: string | null;
  /** sha256 over every kept file (path and content), in path order: the stored set's name. */
  digest: string;
}

/** The content digest of a set of files: sha256 over `sha256  path` lines, in path order. */
export function digestOf(files: ResourceFiles): string {
  const lines = [...files.keys()].sort().map((path) => `${createHash("sha256").update(files.get(path)!).digest("hex")}  ${path}\n`);
  return createHash("sha256").update(lines.join("")).digest("hex");
}

/**
 * Validates every kept file (each line `prefix|value`, prefixes of the file's calling code, no prefix
 * twice, time zones well-formed) and that there are carrier files at all; throws INVALID_DATASET
 * listing every problem with file and line.
 */
export function validateResources(input: ResourceInput, label: string): ResourceSet {
  const problems: string[] = [];
  if (![...input.files.keys()].some((p) => p.startsWith("carrier/en/"))) {
    problems.push(`${label}: no carrier files (resources/carrier/en/<calling code>.txt); give the libphonenumber repository root, its resources folder or a release archive`);
  }
  for (const [path, content] of input.files) {
    const text = content.toString("utf8");
    if (text.includes("\uFFFD")) problems.push(`resources/${path}: not UTF-8 text`);
    if (path === "timezones/map_data.txt") parsePrefixFile(`resources/${path}`, text, problems, { zones: true });
    else parsePrefixFile(`resources/${path}`, text, problems, { callingCode: callingCodeOf(path)! });
  }
  if (problems.length) throw refuse(problems);
  const digest = digestOf(input.files);
  return { files: input.files, version: input.release ?? `sha256:${digest.slice(0, 16)}`, release: input.release, digest };
}
