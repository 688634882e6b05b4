import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/db.ts";
import type { DatasetMetaSource } from "../model/dataset-meta.ts";
import { importDataset, type ImportResult } from "./import.ts";
import { demoDataset } from "./importers/demo.ts";
import { buildCandidate } from "./sources.ts";
import type { CandidateDataset } from "../model/records.ts";

export type InitialDataset = "demo" | "reference" | CandidateDataset;

/** Imports a named dataset (or a given candidate) into a server's database. */
export async function loadInitialDataset(
  deps: { db: Db; clock: Clock; datasetMeta?: DatasetMetaSource },
  dataset: InitialDataset,
): Promise<ImportResult> {
  const candidate = dataset === "demo" ? demoDataset() : dataset === "reference" ? (await buildCandidate("reference")).candidate : dataset;
  return importDataset(deps, candidate, { holder: "initial" });
}
