import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "./errors.ts";
import { IsoTime } from "./common.ts";

export const SourceMode = z.enum(["demo", "ir21", "reference", "mixed"]);
export type SourceMode = z.infer<typeof SourceMode>;

/** `meta` of every JSON success: which request, and which dataset version answered it. */
export const EnvelopeMeta = z
  .object({
    request_id: z.string(),
    dataset_version: z.string(),
    source_mode: SourceMode,
    source_published_at: IsoTime.nullable(),
    ingested_at: IsoTime,
  })
  .meta({ id: "EnvelopeMeta" });
export type EnvelopeMeta = z.infer<typeof EnvelopeMeta>;

/** The dataset part of {@link EnvelopeMeta}, as the catalogue reports it. */
export type DatasetMeta = Omit<EnvelopeMeta, "request_id">;

/** The success envelope around an endpoint's `data`. */
export const envelopeOf = <T extends z.ZodType>(data: T) =>
  z.object({ code: z.literal(0), data, meta: EnvelopeMeta });

export interface Envelope<T> {
  code: 0;
  data: T;
  meta: EnvelopeMeta;
}

const errorCodes = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** The error body: exactly these three fields, never a stack. */
export const ErrorBody = z
  .object({
    code: z.enum(errorCodes),
    message: z.string(),
    request_id: z.string(),
  })
  .strict()
  .meta({ id: "ErrorBody" });
export type ErrorBody = z.infer<typeof ErrorBody>;
