import cron from "node-cron";
import { z } from "zod";
import { ConfigError } from "../config.ts";

/**
 * Catalogue settings from the environment (README "Configuration"):
 * - CATALOG_IMPORT_SCHEDULE: a cron expression for scheduled re-imports; unset (the default) = off.
 * - CATALOG_IMPORT_MODE: what the schedule imports: reference, ir21 or mixed (default reference).
 * - CATALOG_IMPORT_FOLDER: the folder of IR.21 documents for ir21/mixed.
 * - CATALOG_IMPORT_ON_START: import the reference data when the database has no dataset yet
 *   (default true on SQLite, the embedded default; false on MySQL, where an operator runs
 *   `ir21-server import reference` once).
 * - CATALOG_CHANGES_RETENTION_DAYS: how long the change log keeps a version's events after the next
 *   version superseded it (default 90); older ones are pruned hourly and /v1/changes answers a `since`
 *   before them with 400 UNKNOWN_DATASET_VERSION (docs/catalog.md "Change-log retention").
 */
export interface CatalogSettings {
  schedule: string | null;
  mode: "reference" | "ir21" | "mixed";
  folder: string | null;
  importOnStart: boolean | null;
  changesRetentionDays: number;
}

export const DEFAULT_CHANGES_RETENTION_DAYS = 90;

const Schema = z
  .object({
    CATALOG_IMPORT_SCHEDULE: z
      .string()
      .refine((v) => cron.validate(v), "must be a cron expression such as '0 3 * * *'")
      .optional(),
    CATALOG_IMPORT_MODE: z.enum(["reference", "ir21", "mixed"]).default("reference"),
    CATALOG_IMPORT_FOLDER: z.string().min(1).optional(),
    CATALOG_IMPORT_ON_START: z
      .enum(["true", "false", "1", "0"])
      .transform((v) => v === "true" || v === "1")
      .optional(),
    CATALOG_CHANGES_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(DEFAULT_CHANGES_RETENTION_DAYS),
  })
  .superRefine((e, ctx) => {
    if (e.CATALOG_IMPORT_SCHEDULE && e.CATALOG_IMPORT_MODE !== "reference" && !e.CATALOG_IMPORT_FOLDER) {
      ctx.addIssue({ code: "custom", path: ["CATALOG_IMPORT_FOLDER"], message: `required when CATALOG_IMPORT_MODE=${e.CATALOG_IMPORT_MODE}` });
    }
  });

export function catalogSettings(env: Readonly<Record<string, string | undefined>>): CatalogSettings {
  const present = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith("CATALOG_") && v !== undefined && v !== ""));
  const parsed = Schema.safeParse(present);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  const e = parsed.data;
  return {
    schedule: e.CATALOG_IMPORT_SCHEDULE ?? null,
    mode: e.CATALOG_IMPORT_MODE,
    folder: e.CATALOG_IMPORT_FOLDER ?? null,
    importOnStart: e.CATALOG_IMPORT_ON_START ?? null,
    changesRetentionDays: e.CATALOG_CHANGES_RETENTION_DAYS,
  };
}
