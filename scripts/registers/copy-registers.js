#!/usr/bin/env node
// Copies the national numbering registers into the repository (docs/registers.md "Copies in the
// repository"): the project never reads the shared folder at run or test time, a clone has none.
//
//   node scripts/registers/copy-registers.js --source ../shared/registers
//
// Only what the registers' licences allow is shipped (docs/catalog.md "Licences"): each FILES row
// says whether it is embedded (`embed`), i.e. part of the embedded default the server package
// carries. Writes, from the source folder (laid out as <country>/<file>, each folder with its
// PROVENANCE.md):
//   server/data/registers/<path>.br|.gz   each embedded file whole, brotli or gzip, whichever is smaller
//   server/data/registers/manifest.json   each embedded file: register, date, licence (SPDX id or
//                                         LicenseRef), the attribution that must travel with it, the
//                                         publisher's download, where it was taken from, sha256 and size
//   server/fixtures/registers/<path with .slice>[.gz]   a test slice of every file, embedded or not,
//                                         gzip when over 32 KiB
//   server/fixtures/registers/CA/COCodeStatus_ALL_2025-09-12.slice.zip   the 2025 slice zipped as CNAC publishes
//   server/fixtures/registers/slices.json  each slice: its source, the source lines it kept and why; each
//                                         source's accounting as the readers give it (below); the holder
//                                         changes between the two versions of CA, RU and FR
// Any other file under those two folders (a register no longer embedded, a renamed slice) is removed.
//
// Every source file is read here with the server's own readers (server/src/catalog/import/registers,
// through tsx): the script stops unless each reads with 0 silent drops (rows read = the file's rows
// counted here = kept + listed), and slices.json records each file's accounting (rows read, kept,
// listed by reason, blocks by status, holders), so the tests and docs state the figures of files the
// repository no longer holds.
//
// A slice is the file's own lines, byte for byte (encoding and line ends kept), chosen by a fixed
// rule, so re-running the script gives the same bytes:
//   - the header line(s) and date line, as they are;
//   - per "signature" of a row (its status and the shape of its values; per format below), the
//     first two and the last row having it: every status, every column variant, the quirky rows;
//   - every row whose holder differs between the two versions of CA, RU and FR (same block, other
//     holder), in both versions' slices, and the first 25 blocks only one version has;
//   - where a file's date is its latest row date (MAJNUM), the first row with that date;
//   - every k-th row, k = rows / 100, for breadth.
// Small files (under 300 lines) are kept whole. The JSON lists are sliced by entries instead and
// written back as JSON (entries unchanged).
//
// The source is checked against each folder's PROVENANCE.md (the sha256 prefix, size and line count
// of every file): a changed file stops the script. Adding a register: a FILES row, and its format in
// FORMATS; shipping one: `embed: true` and its licence in `shipped()`, once docs/catalog.md "Licences"
// says it may travel.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const root = fileURLToPath(new URL("../..", import.meta.url));
// csv-parse, fflate and tsx are the server's packages (csv-parse and tsx devDependencies): the script
// runs from a checkout.
const requireServer = createRequire(join(root, "server/package.json"));
const { parse } = requireServer("csv-parse/sync");
const { zipSync, unzipSync } = requireServer("fflate");

const args = process.argv.slice(2);
const at = args.indexOf("--source");
const source = resolve(at >= 0 ? args[at + 1] : join(root, "../shared/registers"));
if (!existsSync(join(source, "README.md"))) {
  process.stderr.write(`no registers at ${source}: give --source <folder> (the folder holding CA/, FR/, … and README.md)\n`);
  process.exit(2);
}
const dataOut = join(root, "server/data/registers");
const fixturesOut = join(root, "server/fixtures/registers");

/**
 * Each file, its register, the version date its name gives, its format (FORMATS), and whether it is
 * embedded (shipped in the server package; its licence in `shipped()`). Not embedded, per
 * docs/catalog.md "Licences": CNAC, NANPA, the Russian register (terms unclear, treated as no) and
 * the ITU list (all rights reserved); nor the older MAJNUM (the embedded default needs only the
 * newest version of a register). Those are sliced for the tests and read here for their figures.
 */
const FILES = [
  { path: "CA/COCodeStatus_ALL_2023-08-04.csv", register: "ca-cnac-co-codes", date: "2023-08-04", format: "cnac", pair: "CA", embed: false },
  { path: "CA/COCodeStatus_ALL_2025-09-12.csv", register: "ca-cnac-co-codes", date: "2025-09-12", format: "cnac", pair: "CA", embed: false },
  { path: "CA/COCodeStatus_ALL_2025-09-12.zip", register: "ca-cnac-co-codes", date: "2025-09-12", format: "zip", sameDataAs: "CA/COCodeStatus_ALL_2025-09-12.csv", embed: false },
  { path: "US/npa_report_2026-01-05.csv", register: "us-nanpa-npa", date: "2026-01-05", format: "nanpa", embed: false },
  ...[3, 5, 7, 8, 9].map((s) => ({ path: `UK/S${s}_2025-09-13.csv`, register: `gb-ofcom-s${s}`, date: "2025-09-13", format: "ofcom", embed: true })),
  { path: "RU/DEF-9xx_2023-07.csv", register: "ru-rossvyaz-def", date: "2023-07", format: "rossvyaz", pair: "RU", embed: false },
  { path: "RU/DEF-9xx_2026-04.csv", register: "ru-rossvyaz-def", date: "2026-04", format: "rossvyaz", pair: "RU", embed: false },
  { path: "FR/MAJNUM_2025-06-12.csv", register: "fr-arcep-majnum", date: "2025-06-12", format: "majnum", pair: "FR", embed: false },
  { path: "FR/MAJNUM_2026-04-17.csv", register: "fr-arcep-majnum", date: "2026-04-17", format: "majnum", pair: "FR", embed: true },
  ...["MAJRIO", "MAJMNC", "MAJPORTA", "MAJNFB", "GELNUM", "MAJCPSN", "MAJCPSI", "MAJR1R2", "MAJSDT"].map((n) => ({
    path: `FR/2026-04-20/${n}.csv`,
    register: `fr-arcep-${n.toLowerCase()}`,
    date: "2026-04-20",
    format: n === "GELNUM" ? "gelnum" : n === "MAJNFB" ? "majnum" : "arcep-companion",
    embed: true,
  })),
  { path: "MCCMNC/cavoq_mcc-mnc-list_2024-09-09.json", register: "intl-mcc-mnc-list", date: "2024-09-09", format: "mcc-mnc-list", embed: true },
  { path: "MCCMNC/onomondo_itu_e212_data_2019-10-23.json", register: "intl-itu-e212", date: "2019-10-23", format: "itu", embed: false },
];

/** Ofcom's titles of its numbering files (docs/catalog.md "Licences"): the attribution names the one it credits. */
const OFCOM_TITLES = {
  3: "UK Wide Numbers",
  5: "Corporate Numbers and Location Independent Electronic Communications Services (numbers beginning 055 and 056)",
  7: "Personal Numbering, Radiopaging & Mobile numbers",
  8: "Special Services (numbers beginning 08)",
  9: "Special Services at a Premium Rate (numbers beginning 09)",
};
const OFCOM_INDEX = "https://www.ofcom.org.uk/phones-and-broadband/phone-numbers/numbering-data";
const ARCEP_DATASET = "https://www.data.gouv.fr/fr/datasets/ressources-en-numerotation-telephonique/";
const CAVOQ_COMMIT = "e827f7820af6c8ac1ed07a68c9b7ae3e4d39217f";

/**
 * An embedded file's licence (SPDX id, or a LicenseRef where SPDX has none), the attribution that
 * must travel with it and its publisher's download, as docs/catalog.md "Licences" sets them out.
 */
function shipped(file) {
  const name = file.path.split("/").at(-1).replace(/(_[\d-]+)?\.(csv|json)$/, "");
  const folder = file.path.split("/")[0];
  if (folder === "UK") {
    const series = Number(name.slice(1));
    return {
      licence: "LicenseRef-Ofcom-copyright",
      attribution: `Contains Ofcom numbering data: National Numbering Scheme, ${OFCOM_TITLES[series]}. © Ofcom copyright ${file.date.slice(0, 4)}. Source: ${OFCOM_INDEX}, downloaded ${file.date}.`,
      // The file's link as the index gives it; the live links carry an unpredictable `?v=` suffix, so take them from the index.
      download: `https://www.ofcom.org.uk/siteassets/resources/documents/phones-telecoms-and-internet/information-for-industry/numbering/regular-updates/telephone-numbers/s${series}.csv`,
      downloadPage: OFCOM_INDEX,
    };
  }
  if (folder === "FR") {
    return {
      licence: "etalab-2.0",
      attribution: `Source : Arcep, Ressources en numérotation téléphonique (${name}), ${ARCEP_DATASET}, mise à jour du ${file.date}. Licence Ouverte 2.0 (Etalab). Converted by ir21 (encoding, ranges).`,
      download: `https://extranet.arcep.fr/uploads/${name}.csv`,
      downloadPage: ARCEP_DATASET,
    };
  }
  if (file.register === "intl-mcc-mnc-list") {
    return {
      licence: "CC-BY-SA-4.0",
      attribution:
        "Networks and operators: 'Mobile country code' and 'Mobile Network Codes in ITU region 2xx … 7xx' lists by Wikipedia contributors (https://en.wikipedia.org/wiki/Mobile_country_code and the six regional pages), CC BY-SA 4.0, changed by ir21 (merged, normalised).",
      download: `https://raw.githubusercontent.com/cavoq/mcc-mnc-list/${CAVOQ_COMMIT}/mcc-mnc-list.json`,
      downloadPage: "https://github.com/cavoq/mcc-mnc-list",
    };
  }
  throw new Error(`${file.path} is marked embed but has no licence here: add it (docs/catalog.md "Licences") or set embed: false`);
}

const col = (header, name) => header.indexOf(name);
const shape = (s) => s.replace(/\d/g, "d");

/**
 * Per format: how to read its lines (encoding, delimiter, quoting, lines before the data, which of
 * them is the header when not the last), a row's signature,
 * and for the formats given in two versions the block key and holder that tell a holder change.
 */
const FORMATS = {
  cnac: {
    encoding: "utf-8",
    delimiter: ",",
    quote: true,
    headerLines: 2,
    headerLine: 1,
    signature(f, h) {
      const v = (n) => (col(h, n) >= 0 ? f[col(h, n)] : undefined);
      return [v("Status"), v("Pooled") ?? "-", v("Province") ? "province" : "-", v("Company") ? "company" : "-", v("Remarks") ? "remarks" : "-"].join("|");
    },
    key: (f) => `${f[0]}-${f[1]}`,
    holder: (f, h) => f[col(h, "OCN")],
  },
  nanpa: {
    encoding: "utf-8",
    delimiter: ",",
    quote: true,
    headerLines: 2,
    signature(f, h) {
      const v = (n) => f[col(h, n)];
      const country = v("COUNTRY");
      return [v("type_of_code"), v("ASSIGNED"), v("RESERVED"), v("ASSIGNABLE"), v("IN_SERVICE"), country === "US" || country === "CANADA" || country === "" ? country : "other"].join("|");
    },
  },
  ofcom: {
    encoding: "utf-8",
    delimiter: ",",
    quote: true,
    headerLines: 1,
    signature: (f) => [f[1], shape(f[0]), f[2] ? "holder" : "-", f[4] ? "date" : "-", f[3]].join("|"),
  },
  rossvyaz: {
    encoding: "utf-8",
    delimiter: ";",
    quote: false,
    headerLines: 1,
    // Per DEF code, and per kind of name: bare quotes (`ООО "Т2 Мобайл"`), guillemets, neither.
    signature: (f) => [f[0], f[4].includes('"') ? "quotes" : f[4].includes("«") ? "guillemets" : "plain"].join("|"),
    key: (f) => `${f[0]};${f[1]};${f[2]}`,
    holder: (f) => f[f.length - 1],
  },
  majnum: {
    encoding: "windows-1252",
    delimiter: ";",
    quote: true,
    headerLines: 1,
    // Block length (EZABPQM 2 to 8 digits), number length, territory, series.
    signature: (f) => [f[0].length, f[1].length, f[4], f[1].slice(0, 2)].join("|"),
    key: (f) => f[0],
    holder: (f) => f[3],
    // The file's date is its latest Date_Attribution (DD/MM/YYYY): the slice keeps that row, so it reads with the file's date.
    date: (f) => (f[5] ? `${f[5].slice(6, 10)}-${f[5].slice(3, 5)}-${f[5].slice(0, 2)}` : ""),
  },
  gelnum: {
    encoding: "windows-1252",
    delimiter: ";",
    quote: true,
    headerLines: 1,
    signature: (f) => [f[1], f[0].length, f[0].slice(0, 3)].join("|"),
  },
  "arcep-companion": {
    encoding: "windows-1252",
    delimiter: ";",
    quote: true,
    headerLines: 1,
    // Per holder code (MAJPORTA's second column, the others'): every holder named.
    signature: (f, h) => f[h.findIndex((n) => /^(Code Attributaire|Mn.mo)$/.test(n))] ?? f[1],
    perSignature: { first: 1, last: 0 },
  },
};

function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The file's lines as byte ranges: [start, end of content, end with terminator]. */
function lineRanges(bytes) {
  const lines = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      lines.push([start, i > start && bytes[i - 1] === 0x0d ? i - 1 : i, i + 1]);
      start = i + 1;
    }
  }
  if (start < bytes.length) lines.push([start, bytes.length, bytes.length]);
  return lines;
}

/** The file's rows: every line parsed by csv-parse (each of these registers has one record per line). */
function rowsOf(bytes, format) {
  const text = new TextDecoder(format.encoding).decode(bytes);
  const records = parse(text, {
    delimiter: format.delimiter,
    quote: format.quote ? '"' : false,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
    bom: true,
  });
  const ranges = lineRanges(bytes);
  if (records.length !== ranges.length) throw new Error(`${records.length} records for ${ranges.length} lines: a record spans lines`);
  return records.map((fields, i) => ({ line: i + 1, fields, range: ranges[i] }));
}

function readProvenance(folder) {
  const text = readFileSync(join(source, folder, "PROVENANCE.md"), "utf8");
  const rows = new Map();
  for (const line of text.split("\n")) {
    const m = /^\| `([^`]+)` \| (\d+) \| ([^|]*) \| `([0-9a-f]+)…` \| (.+) \|$/.exec(line);
    if (m) rows.set(`${folder}/${m[1]}`, { bytes: Number(m[2]), lineFeeds: /^\d+$/.test(m[3].trim()) ? Number(m[3]) : null, sha256Prefix: m[4], takenFrom: m[5].trim() });
  }
  return rows;
}

/** Line numbers a slice keeps, with why (per rule). */
function selectRows(rows, format, changes) {
  const header = rows[(format.headerLine ?? format.headerLines) - 1]?.fields ?? [];
  const data = rows.slice(format.headerLines);
  const keep = new Map(); // line → rule
  const add = (line, rule) => keep.has(line) || keep.set(line, rule);
  for (let i = 0; i < format.headerLines && i < rows.length; i++) add(rows[i].line, "header");
  if (rows.length < 300) {
    for (const r of data) add(r.line, "whole file");
    return keep;
  }
  const per = format.perSignature ?? { first: 2, last: 1 };
  const bySignature = new Map();
  for (const r of data) {
    const s = format.signature(r.fields, header);
    const list = bySignature.get(s) ?? [];
    list.push(r.line);
    bySignature.set(s, list);
  }
  for (const lines of bySignature.values()) {
    for (const l of lines.slice(0, per.first)) add(l, "signature");
    if (per.last > 0) for (const l of lines.slice(-per.last)) add(l, "signature");
  }
  if (changes) {
    for (const r of data) {
      const key = format.key(r.fields, header);
      if (changes.changed.has(key)) add(r.line, "holder changed");
      else if (changes.only.has(key)) add(r.line, "in one version only");
    }
  }
  if (format.date) {
    const latest = data.reduce((best, r) => (format.date(r.fields) > format.date(best.fields) ? r : best), data[0]);
    add(latest.line, "latest date");
  }
  const k = Math.max(1, Math.floor(data.length / 100));
  data.forEach((r, i) => i % k === 0 && add(r.line, "stride"));
  return keep;
}

/**
 * Blocks whose holder differs between two versions (the same block in both, another holder), the
 * first 25 of each version's blocks the other lacks, and how many each version alone has.
 */
function holderChanges(older, newer, format) {
  const index = (rows) => {
    const header = rows[(format.headerLine ?? format.headerLines) - 1].fields;
    const map = new Map();
    for (const r of rows.slice(format.headerLines)) map.set(format.key(r.fields, header), format.holder(r.fields, header));
    return map;
  };
  const a = index(older);
  const b = index(newer);
  const changed = new Set([...a].filter(([k, h]) => b.has(k) && b.get(k) !== h).map(([k]) => k));
  const onlyOlder = [...a.keys()].filter((k) => !b.has(k));
  const onlyNewer = [...b.keys()].filter((k) => !a.has(k));
  return { changed, only: new Set([...onlyOlder.slice(0, 25), ...onlyNewer.slice(0, 25)]), onlyOlder: onlyOlder.length, onlyNewer: onlyNewer.length };
}

/** The file's rows counted without the readers: lines (a last line without a line feed counts), or the JSON list's entries. */
function rowsIn(file, bytes) {
  if (file.format === "mcc-mnc-list") return JSON.parse(new TextDecoder().decode(bytes)).length;
  if (file.format === "itu") return Object.values(JSON.parse(new TextDecoder().decode(bytes)).areas).reduce((n, list) => n + list.length, 0);
  return lineRanges(bytes).length;
}

/**
 * The file read by the server's readers, checked for silent drops: every row counted here is read,
 * and every row read is kept (a block, network or resource) or listed with its reason. The figures
 * go to slices.json: the tests and docs state them for files the repository does not hold whole.
 */
function accountingOf(readRegister, file, bytes) {
  const read = readRegister(bytes, { fileName: file.path });
  const { report } = read;
  const rows = rowsIn(file, bytes);
  const listedByReason = {};
  for (const l of report.listed) listedByReason[l.reason] = (listedByReason[l.reason] ?? 0) + 1;
  const problems = [
    report.refused !== null && `refused: ${report.refused}`,
    read.register !== file.register && `read as ${read.register}, not ${file.register}`,
    report.rows.read !== rows && `${report.rows.read} rows read of the file's ${rows}`,
    report.rows.kept + report.rows.listed !== report.rows.read && `${report.rows.kept} kept + ${report.rows.listed} listed ≠ ${report.rows.read} read`,
    report.listed.length !== report.rows.listed && `${report.listed.length} rows named in the list, ${report.rows.listed} counted`,
    report.blocks + report.networks + report.resources !== report.rows.kept && `${report.blocks} blocks + ${report.networks} networks + ${report.resources} resources ≠ ${report.rows.kept} kept`,
    read.blocks.length + read.networks.length + read.resources.length !== report.rows.kept && "the output's length is not the rows kept",
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`${file.path} does not read with 0 silent drops: ${problems.join("; ")}`);
  return {
    unit: report.rows.unit,
    rows,
    read: report.rows.read,
    kept: report.rows.kept,
    listed: report.rows.listed,
    listedByReason,
    blocksByStatus: report.blocksByStatus,
    blocks: report.blocks,
    networks: report.networks,
    resources: report.resources,
    holders: report.holders,
  };
}

/** Removes every file under `folder` not in `keep` (absolute paths), then the folders left empty. */
function removeOthers(folder, keep) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      removeOthers(path, keep);
      if (readdirSync(path).length === 0) rmdirSync(path);
    } else if (!keep.has(path)) {
      rmSync(path);
      process.stderr.write(`removed ${relative(root, path)}\n`);
    }
  }
}

function writeCompressedIfLarge(path, bytes) {
  rmSync(path, { force: true });
  rmSync(`${path}.gz`, { force: true });
  if (bytes.length > 32 * 1024) {
    writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
    return `${path}.gz`;
  }
  writeFileSync(path, bytes);
  return path;
}

function sliceJson(file, bytes) {
  const doc = JSON.parse(new TextDecoder().decode(bytes));
  const picked = [];
  if (file.format === "mcc-mnc-list") {
    const seen = new Map();
    const pairs = new Map();
    for (const e of doc) pairs.set(`${e.mcc}-${e.mnc}`, (pairs.get(`${e.mcc}-${e.mnc}`) ?? 0) + 1);
    doc.forEach((e, i) => {
      const mncShape = /^\d{2,3}$/.test(e.mnc) ? "plain" : `odd:${shape(e.mnc)}`;
      const countryShape = e.countryCode === null ? "none" : shape(e.countryCode.replace(/[A-Z]/g, "A"));
      const s = [e.status, e.type, mncShape, countryShape, e.notes ? "notes" : "-", e.brand ? "brand" : "-", e.bands === null ? "no bands" : "-"].join("|");
      const n = seen.get(s) ?? 0;
      seen.set(s, n + 1);
      if (n < 2 || mncShape !== "plain" || pairs.get(`${e.mcc}-${e.mnc}`) > 1 || i % 33 === 0) picked.push(i + 1);
    });
    return { json: `${JSON.stringify(picked.map((n) => doc[n - 1]), null, 2)}\n`, entries: picked };
  }
  // ITU: every area's first two entries and every entry of a pair shared between areas.
  const count = new Map();
  for (const list of Object.values(doc.areas)) for (const e of list) count.set(`${e.mcc}-${e.mnc}`, (count.get(`${e.mcc}-${e.mnc}`) ?? 0) + 1);
  const areas = {};
  let n = 0;
  for (const [area, list] of Object.entries(doc.areas)) {
    areas[area] = list.filter((e, i) => {
      n++;
      const keep = i < 2 || count.get(`${e.mcc}-${e.mnc}`) > 1;
      if (keep) picked.push(n);
      return keep;
    });
  }
  return { json: JSON.stringify({ ...doc, areas }), entries: picked };
}

/**
 * The server's register readers, imported from their TypeScript source through tsx's API (Node 20
 * runs no TypeScript by itself). The import target is tsx's `./esm/api` export, by path: its CommonJS
 * build cannot load the ESM hooks from a pnpm layout.
 */
async function loadReaders() {
  const tsx = join(dirname(requireServer.resolve("tsx/package.json")), "dist/esm/api/index.mjs");
  const { tsImport } = await import(pathToFileURL(tsx).href);
  return tsImport(pathToFileURL(join(root, "server/src/catalog/import/registers/index.ts")).href, import.meta.url);
}

async function run() {
  const { readRegister } = await loadReaders();
  const provenance = new Map();
  for (const folder of ["CA", "US", "UK", "RU", "FR", "MCCMNC"]) for (const [k, v] of readProvenance(folder)) provenance.set(k, v);
  mkdirSync(dataOut, { recursive: true });
  mkdirSync(fixturesOut, { recursive: true });
  const bytesOf = new Map(FILES.map((f) => [f.path, readFileSync(join(source, f.path))]));
  for (const f of FILES) {
    const p = provenance.get(f.path);
    const bytes = bytesOf.get(f.path);
    const digest = sha256(bytes);
    const lineFeeds = bytes.reduce((n, b) => (b === 0x0a ? n + 1 : n), 0);
    if (!p || !digest.startsWith(p.sha256Prefix) || p.bytes !== bytes.length || (p.lineFeeds !== null && p.lineFeeds !== lineFeeds)) {
      throw new Error(`${f.path}: not the file PROVENANCE.md describes (sha256 ${digest}, ${bytes.length} bytes, ${lineFeeds} lines)`);
    }
  }

  // Holder changes between the two versions of CA, RU and FR (csv-parse, not the readers: the tests compare the two).
  const rowsByPath = new Map();
  for (const f of FILES) if (FORMATS[f.format]) rowsByPath.set(f.path, rowsOf(bytesOf.get(f.path), FORMATS[f.format]));
  const changesByPair = new Map();
  const holderChangesRecord = [];
  for (const pair of ["CA", "RU", "FR"]) {
    const [older, newer] = FILES.filter((f) => f.pair === pair);
    const changes = holderChanges(rowsByPath.get(older.path), rowsByPath.get(newer.path), FORMATS[older.format]);
    changesByPair.set(pair, changes);
    holderChangesRecord.push({ register: older.register, older: older.path, newer: newer.path, changed: changes.changed.size, onlyInOlder: changes.onlyOlder, onlyInNewer: changes.onlyNewer });
  }

  const written = new Set(); // every file this run writes: anything else under the two folders goes
  const manifest = [];
  const slices = [];
  for (const f of FILES) {
    const bytes = bytesOf.get(f.path);
    const p = provenance.get(f.path);
    const digest = sha256(bytes);
    if (f.sameDataAs) {
      // The zip as published holds the CSV, byte for byte: checked, so the CSV's slice zipped stands for it.
      const members = unzipSync(bytes);
      const names = Object.keys(members);
      if (names.length !== 1 || Buffer.compare(Buffer.from(members[names[0]]), bytesOf.get(f.sameDataAs)) !== 0) throw new Error(`${f.path} does not hold ${f.sameDataAs}`);
      if (f.embed) throw new Error(`${f.path}: its data is ${f.sameDataAs}'s, embed that`);
      continue;
    }
    const accounting = accountingOf(readRegister, f, bytes);

    let stored = null;
    if (f.embed) {
      const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
      const gz = gzipSync(bytes, { level: 9 });
      const [compression, packed] = br.length <= gz.length ? ["br", br] : ["gz", gz];
      stored = `${f.path}.${compression}`;
      mkdirSync(dirname(join(dataOut, stored)), { recursive: true });
      writeFileSync(join(dataOut, stored), packed);
      written.add(join(dataOut, stored));
      manifest.push({
        path: f.path,
        register: f.register,
        date: f.date,
        ...shipped(f),
        takenFrom: p.takenFrom,
        sha256: digest,
        bytes: bytes.length,
        stored,
        compression,
        storedBytes: packed.length,
      });
    }

    // The slice, of every file: embedded or not, each register's reading stays tested.
    const slicePath = join(fixturesOut, f.path.replace(/\.(csv|json)$/, ".slice.$1"));
    mkdirSync(dirname(slicePath), { recursive: true });
    let slice;
    let kept;
    let rules = {};
    if (f.format === "mcc-mnc-list" || f.format === "itu") {
      const { json, entries } = sliceJson(f, bytes);
      slice = writeCompressedIfLarge(slicePath, Buffer.from(json));
      kept = entries;
      rules = { entries: entries.length };
    } else {
      const format = FORMATS[f.format];
      const rows = rowsByPath.get(f.path);
      const keep = selectRows(rows, format, f.pair ? changesByPair.get(f.pair) : null);
      kept = [...keep.keys()].sort((a, b) => a - b);
      for (const rule of keep.values()) rules[rule] = (rules[rule] ?? 0) + 1;
      const parts = kept.map((line) => {
        const [start, , end] = rows[line - 1].range;
        return bytes.subarray(start, end);
      });
      const sliceBytes = Buffer.concat(parts);
      slice = writeCompressedIfLarge(slicePath, sliceBytes);
      if (f.path === "CA/COCodeStatus_ALL_2025-09-12.csv") {
        // As CNAC publishes it: one member, COCodeStatus_ALL.csv, deflated, dated as the published one.
        const zip = zipSync({ "COCodeStatus_ALL.csv": [sliceBytes, { level: 9, mtime: new Date("2025-09-12T21:00:00Z") }] });
        const zipPath = join(fixturesOut, "CA/COCodeStatus_ALL_2025-09-12.slice.zip");
        writeFileSync(zipPath, zip);
        written.add(zipPath);
      }
    }
    written.add(slice);
    slices.push({
      source: f.path,
      sourceSha256: digest,
      embedded: f.embed,
      sourceAccounting: accounting,
      slice: slice.slice(fixturesOut.length + 1),
      unit: f.format === "mcc-mnc-list" || f.format === "itu" ? "entry" : "line",
      kept: kept.length,
      rules,
      rows: kept,
    });
    const unit = slices.at(-1).unit === "entry" ? "entries" : "lines";
    process.stderr.write(
      `${f.path}: ${accounting.read} ${unit} read, ${accounting.kept} kept, ${accounting.listed} listed; ${stored ? `embedded as ${stored}` : "not embedded"}; slice ${kept.length} ${unit}\n`,
    );
  }
  writeFileSync(
    join(dataOut, "manifest.json"),
    `${JSON.stringify(
      {
        about:
          "The national numbering registers the server package embeds, written by scripts/registers/copy-registers.js (docs/registers.md): each with its licence and the attribution that must travel with it (docs/catalog.md, \"Licences\").",
        files: manifest,
      },
      null,
      2,
    )}\n`,
  );
  written.add(join(dataOut, "manifest.json"));
  writeFileSync(
    join(fixturesOut, "slices.json"),
    `${JSON.stringify(
      {
        about:
          "Test slices of the registers, written by scripts/registers/copy-registers.js: the rows (lines, or JSON entries) each slice keeps from its source, in order; each source's accounting as the readers gave it when the slices were cut (checked: 0 silent drops); the holder changes between two versions of a register (csv-parse).",
        holderChanges: holderChangesRecord,
        slices,
      },
      null,
      1,
    )}\n`,
  );
  written.add(join(fixturesOut, "slices.json"));
  removeOthers(dataOut, written);
  removeOthers(fixturesOut, written);
}

await run();
