#!/usr/bin/env node
// Copies the national numbering registers into the repository (docs/registers.md "Copies in the
// repository"): the project never reads the shared folder at run or test time, a clone has none.
//
//   node scripts/registers/copy-registers.js --source ../shared/registers
//
// Writes, from the source folder (laid out as <country>/<file>, each folder with its PROVENANCE.md):
//   server/data/registers/<path>.br|.gz   every file whole, brotli or gzip, whichever is smaller (the
//                                         CNAC zip is not kept: it holds the same CSV, byte for byte)
//   server/data/registers/manifest.json   each file: register, date, sha256 and size of the original,
//                                         where it was taken from, licence (to be established)
//   server/fixtures/registers/<path with .slice>[.gz]   test slices, gzip when over 32 KiB
//   server/fixtures/registers/CA/COCodeStatus_ALL_2025-09-12.slice.zip   the 2025 slice zipped as CNAC publishes
//   server/fixtures/registers/slices.json  each slice: its source, the source lines it kept and why
//
// A slice is the file's own lines, byte for byte (encoding and line ends kept), chosen by a fixed
// rule, so re-running the script gives the same bytes:
//   - the header line(s) and date line, as they are;
//   - per "signature" of a row (its status and the shape of its values; per format below), the
//     first two and the last row having it: every status, every column variant, the quirky rows;
//   - every row whose holder differs between the two versions of CA, RU and FR (same block, other
//     holder), in both versions' slices, and the first 25 blocks only one version has;
//   - every k-th row, k = rows / 100, for breadth.
// Small files (under 300 lines) are kept whole. The JSON lists are sliced by entries instead and
// written back as JSON (entries unchanged).
//
// The source is checked against each folder's PROVENANCE.md (the sha256 prefix of every file): a
// changed file stops the script. Adding a register: a FILES row, and its format in FORMATS.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const root = fileURLToPath(new URL("../..", import.meta.url));
// csv-parse and fflate are the server's packages (one a devDependency): the script runs from a checkout.
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

/** Each file, its register, the version date its name gives, and its format (FORMATS). */
const FILES = [
  { path: "CA/COCodeStatus_ALL_2023-08-04.csv", register: "ca-cnac-co-codes", date: "2023-08-04", format: "cnac", pair: "CA" },
  { path: "CA/COCodeStatus_ALL_2025-09-12.csv", register: "ca-cnac-co-codes", date: "2025-09-12", format: "cnac", pair: "CA" },
  { path: "CA/COCodeStatus_ALL_2025-09-12.zip", register: "ca-cnac-co-codes", date: "2025-09-12", format: "zip", sameDataAs: "CA/COCodeStatus_ALL_2025-09-12.csv" },
  { path: "US/npa_report_2026-01-05.csv", register: "us-nanpa-npa", date: "2026-01-05", format: "nanpa" },
  ...[3, 5, 7, 8, 9].map((s) => ({ path: `UK/S${s}_2025-09-13.csv`, register: `gb-ofcom-s${s}`, date: "2025-09-13", format: "ofcom" })),
  { path: "RU/DEF-9xx_2023-07.csv", register: "ru-rossvyaz-def", date: "2023-07", format: "rossvyaz", pair: "RU" },
  { path: "RU/DEF-9xx_2026-04.csv", register: "ru-rossvyaz-def", date: "2026-04", format: "rossvyaz", pair: "RU" },
  { path: "FR/MAJNUM_2025-06-12.csv", register: "fr-arcep-majnum", date: "2025-06-12", format: "majnum", pair: "FR" },
  { path: "FR/MAJNUM_2026-04-17.csv", register: "fr-arcep-majnum", date: "2026-04-17", format: "majnum", pair: "FR" },
  ...["MAJRIO", "MAJMNC", "MAJPORTA", "MAJNFB", "GELNUM", "MAJCPSN", "MAJCPSI", "MAJR1R2", "MAJSDT"].map((n) => ({
    path: `FR/2026-04-20/${n}.csv`,
    register: `fr-arcep-${n.toLowerCase()}`,
    date: "2026-04-20",
    format: n === "GELNUM" ? "gelnum" : n === "MAJNFB" ? "majnum" : "arcep-companion",
  })),
  { path: "MCCMNC/cavoq_mcc-mnc-list_2024-09-09.json", register: "intl-mcc-mnc-list", date: "2024-09-09", format: "mcc-mnc-list" },
  { path: "MCCMNC/onomondo_itu_e212_data_2019-10-23.json", register: "intl-itu-e212", date: "2019-10-23", format: "itu" },
];

/** Who publishes each register, for the licence placeholder. */
const PUBLISHERS = { CA: "CNAC", US: "NANPA", UK: "Ofcom", RU: "the Ministry of Digital Development (Rossvyaz)", FR: "ARCEP", MCCMNC: "the list's maintainers (Wikipedia, ITU)" };

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
    const m = /^\| `([^`]+)` \| (\d+) \| [^|]* \| `([0-9a-f]+)…` \| (.+) \|$/.exec(line);
    if (m) rows.set(`${folder}/${m[1]}`, { bytes: Number(m[2]), sha256Prefix: m[3], takenFrom: m[4].trim() });
  }
  const licence = /Licence of the data: (.+)/.exec(text)?.[1]?.trim() ?? null;
  return { rows, licence };
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
  const k = Math.max(1, Math.floor(data.length / 100));
  data.forEach((r, i) => i % k === 0 && add(r.line, "stride"));
  return keep;
}

/** Blocks whose holder differs between two versions, and the first 25 of each version's blocks the other lacks. */
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
  const only = new Set([...[...a.keys()].filter((k) => !b.has(k)).slice(0, 25), ...[...b.keys()].filter((k) => !a.has(k)).slice(0, 25)]);
  return { changed, only };
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

function run() {
  const provenance = new Map();
  const licences = new Map();
  for (const folder of ["CA", "US", "UK", "RU", "FR", "MCCMNC"]) {
    const { rows, licence } = readProvenance(folder);
    for (const [k, v] of rows) provenance.set(k, v);
    licences.set(folder, licence);
  }
  mkdirSync(dataOut, { recursive: true });
  mkdirSync(fixturesOut, { recursive: true });
  const bytesOf = new Map(FILES.map((f) => [f.path, readFileSync(join(source, f.path))]));
  for (const f of FILES) {
    const p = provenance.get(f.path);
    const digest = sha256(bytesOf.get(f.path));
    if (!p || !digest.startsWith(p.sha256Prefix) || p.bytes !== bytesOf.get(f.path).length) throw new Error(`${f.path}: not the file PROVENANCE.md describes (sha256 ${digest})`);
  }

  // Holder changes between the two versions of CA, RU and FR.
  const rowsByPath = new Map();
  for (const f of FILES) if (FORMATS[f.format]) rowsByPath.set(f.path, rowsOf(bytesOf.get(f.path), FORMATS[f.format]));
  const changesByPair = new Map();
  for (const pair of ["CA", "RU", "FR"]) {
    const [older, newer] = FILES.filter((f) => f.pair === pair);
    changesByPair.set(pair, holderChanges(rowsByPath.get(older.path), rowsByPath.get(newer.path), FORMATS[older.format]));
  }

  const manifest = [];
  const slices = [];
  for (const f of FILES) {
    const bytes = bytesOf.get(f.path);
    const p = provenance.get(f.path);
    const entry = {
      path: f.path,
      register: f.register,
      date: f.date,
      sha256: sha256(bytes),
      bytes: bytes.length,
      takenFrom: p.takenFrom,
      licence: `unknown: ${licences.get(f.path.split("/")[0])} To be established from ${PUBLISHERS[f.path.split("/")[0]]}'s terms.`,
    };
    if (f.sameDataAs) {
      // The zip as published holds the CSV, byte for byte: checked, then not kept twice.
      const members = unzipSync(bytes);
      const names = Object.keys(members);
      const same = bytesOf.get(f.sameDataAs);
      if (names.length !== 1 || Buffer.compare(Buffer.from(members[names[0]]), same) !== 0) throw new Error(`${f.path} does not hold ${f.sameDataAs}`);
      manifest.push({ ...entry, stored: null, sameDataAs: f.sameDataAs, member: names[0] });
      continue;
    }
    const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    const gz = gzipSync(bytes, { level: 9 });
    const [compression, packed] = br.length <= gz.length ? ["br", br] : ["gz", gz];
    const stored = `${f.path}.${compression}`;
    mkdirSync(dirname(join(dataOut, stored)), { recursive: true });
    rmSync(join(dataOut, `${f.path}.${compression === "br" ? "gz" : "br"}`), { force: true });
    writeFileSync(join(dataOut, stored), packed);
    manifest.push({ ...entry, stored, compression, storedBytes: packed.length });

    // The slice.
    const slicePath = join(fixturesOut, f.path.replace(/\.(csv|json)$/, ".slice.$1"));
    mkdirSync(dirname(slicePath), { recursive: true });
    let written;
    let kept;
    let rules = {};
    if (f.format === "mcc-mnc-list" || f.format === "itu") {
      const { json, entries } = sliceJson(f, bytes);
      written = writeCompressedIfLarge(slicePath, Buffer.from(json));
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
      const slice = Buffer.concat(parts);
      written = writeCompressedIfLarge(slicePath, slice);
      if (f.path === "CA/COCodeStatus_ALL_2025-09-12.csv") {
        // As CNAC publishes it: one member, COCodeStatus_ALL.csv, deflated, dated as the published one.
        const zip = zipSync({ "COCodeStatus_ALL.csv": [slice, { level: 9, mtime: new Date("2025-09-12T21:00:00Z") }] });
        writeFileSync(join(fixturesOut, "CA/COCodeStatus_ALL_2025-09-12.slice.zip"), zip);
      }
    }
    slices.push({
      source: f.path,
      sourceSha256: entry.sha256,
      slice: written.slice(fixturesOut.length + 1),
      unit: f.format === "mcc-mnc-list" || f.format === "itu" ? "entry" : "line",
      kept: kept.length,
      rules,
      rows: kept,
    });
    process.stderr.write(`${f.path}: ${bytes.length} bytes → ${stored} ${packed.length} bytes; slice ${kept.length} ${slices.at(-1).unit === "entry" ? "entries" : "lines"}\n`);
  }
  writeFileSync(
    join(dataOut, "manifest.json"),
    `${JSON.stringify({ about: "Copies of national numbering registers, written by scripts/registers/copy-registers.js (docs/registers.md). Which may ship in the embedded default depends on each licence.", files: manifest }, null, 2)}\n`,
  );
  writeFileSync(
    join(fixturesOut, "slices.json"),
    `${JSON.stringify({ about: "Test slices of the registers, written by scripts/registers/copy-registers.js: the rows (lines, or JSON entries) each slice keeps from its source, in order.", slices }, null, 1)}\n`,
  );
}

run();
