import type { ImportOptions } from "./import.ts";
import { readIr21Documents, ir21Dataset, mixedDataset } from "./importers/ir21.ts";
import { demoDataset } from "./importers/demo.ts";
import { referenceDataset, type ReferenceReport } from "./importers/reference.ts";
import { withDataVersions } from "./importers/data-versions.ts";
import { loadLocalSources, NO_LOCAL_SOURCES, withLocalSources, type LocalSourceDeps } from "./local-sources.ts";
import type { CandidateDataset } from "../model/records.ts";
import type { MaterialisedDataset } from "./importers/demo.ts";
import { registerFilesInUse } from "./national-registers.ts";
import { withRegisters, type RegisterOverlayReport } from "./register-records.ts";
import { withNetworkRegisters, type NetworkOverlayReport } from "./network-records.ts";

export type ImportMode = "reference" | "ir21" | "mixed" | "demo";

/**
 * Builds the candidate for an import mode: reference from the npm packages, ir21/mixed from IR.21
 * documents (all validated before anything is compared), demo from the hand-made set. The national
 * registers in use (packaged, or loaded by the operator) are laid over the reference data of reference
 * and mixed imports (register-records.ts), before the documents of a mixed import.
 */
export async function buildCandidate(
  mode: ImportMode,
  paths: string[] = [],
  /**
   * The installation whose loaded source files (local-sources.ts, in its database) apply: NANPA reports
   * to reference, mixed and demo imports; libphonenumber files (import carriers) replace the packaged
   * carrier data of reference and mixed. Without it, none do.
   */
  installation?: LocalSourceDeps,
): Promise<{ candidate: CandidateDataset; report: ReferenceReport | null; registers?: RegisterOverlayReport; networks?: NetworkOverlayReport; unmodelled?: string[]; warnings?: string[] }> {
  // Documents first: a bad document fails fast, before anything else is read.
  const documents = mode === "ir21" || mode === "mixed" ? readIr21Documents(paths) : [];
  const local = installation ? await loadLocalSources(installation) : NO_LOCAL_SOURCES;
  if (mode === "demo") return { candidate: withSourceDates(withLocalSources(demoDataset(), local)), report: null };
  const read = await referenceDataset({ carriers: local.carriers });
  const reference = { ...read.candidate, sources: withDataVersions(read.candidate.sources) };
  if (mode === "ir21") return { candidate: withSourceDates(ir21Dataset(documents, reference)), report: null, unmodelled: unmodelledOf(documents), warnings: warningsOf(documents) };
  const inUse = await registerFilesInUse(installation?.db ?? null);
  const registered = withRegisters(withLocalSources(reference, local), inUse);
  // The MCC/MNC files (the newer list, ARCEP's MAJMNC, the ITU's) over the networks, once the holders' operators exist.
  const networked = withNetworkRegisters(registered.dataset, inUse);
  const overlaid = { dataset: networked.dataset, report: registered.report };
  const networks = networked.report;
  if (mode === "reference") return { candidate: withSourceDates(overlaid.dataset), report: read.report, registers: overlaid.report, networks };
  return {
    candidate: withSourceDates(mixedDataset(documents, overlaid.dataset)),
    report: read.report,
    registers: overlaid.report,
    networks,
    unmodelled: unmodelledOf(documents),
    warnings: warningsOf(documents),
  };
}

/** Elements of the documents that no record holds: the import report names them by path. */
const unmodelledOf = (documents: ReturnType<typeof readIr21Documents>) => documents.flatMap((d) => d.unmodelled.map((path) => `${d.file}: ${path}`));
/** What was normalised in the documents (and how a sample marked itself): the import report says so. */
const warningsOf = (documents: ReturnType<typeof readIr21Documents>) =>
  documents.flatMap((d) => [...(d.sampleMarker ? [`sample document (${d.sampleMarker}): imported as ir21-sample:${d.document.document.sender_tadig}`] : []), ...d.warnings].map((w) => `${d.file}: ${w}`));

/**
 * Every range says when its source was true (docs/catalog.md "Sources and their dates"): a range
 * without a date of its own (a register's ranges have their file's) gets its source's publication date.
 */
function withSourceDates(dataset: MaterialisedDataset): MaterialisedDataset {
  const dates = new Map(dataset.sources.map((s) => [s.id, s.published_at?.slice(0, 10) ?? null]));
  return { ...dataset, numberRanges: dataset.numberRanges.map((r) => (r.source_date !== null ? r : { ...r, source_date: dates.get(r.source) ?? null })) };
}

/** Progress lines for long imports, e.g. "compare number_ranges 100000". */
export function progressPrinter(write: (line: string) => void): NonNullable<ImportOptions["onProgress"]> {
  return ({ phase, entity, done }) => write(`  ${phase === "compare" ? "comparing" : "writing"} ${entity}: ${done.toLocaleString("en-US")}`);
}
