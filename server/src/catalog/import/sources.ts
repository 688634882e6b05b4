import type { ImportOptions } from "./import.ts";
import { readIr21Documents, ir21Dataset, mixedDataset } from "./importers/ir21.ts";
import { demoDataset } from "./importers/demo.ts";
import { referenceDataset, type ReferenceReport } from "./importers/reference.ts";
import { withDataVersions } from "./importers/data-versions.ts";
import { loadLocalSources, NO_LOCAL_SOURCES, withLocalSources, type LocalSourceDeps } from "./local-sources.ts";
import type { CandidateDataset } from "../model/records.ts";

export type ImportMode = "reference" | "ir21" | "mixed" | "demo";

/**
 * Builds the candidate for an import mode: reference from the npm packages, ir21/mixed from IR.21
 * documents (all validated before anything is compared), demo from the hand-made set.
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
): Promise<{ candidate: CandidateDataset; report: ReferenceReport | null; unmodelled?: string[] }> {
  // Documents first: a bad document fails fast, before anything else is read.
  const documents = mode === "ir21" || mode === "mixed" ? readIr21Documents(paths) : [];
  const local = installation ? await loadLocalSources(installation) : NO_LOCAL_SOURCES;
  if (mode === "demo") return { candidate: withLocalSources(demoDataset(), local), report: null };
  if (mode === "reference") {
    const { candidate, report } = await referenceDataset({ carriers: local.carriers });
    return { candidate: withLocalSources({ ...candidate, sources: withDataVersions(candidate.sources) }, local), report };
  }
  const read = await referenceDataset({ carriers: local.carriers });
  const built = { ...read, candidate: { ...read.candidate, sources: withDataVersions(read.candidate.sources) } };
  const report = built.report;
  const reference = mode === "mixed" ? withLocalSources(built.candidate, local) : built.candidate;
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
