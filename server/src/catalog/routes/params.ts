import { z } from "zod";
import { Cursor } from "../../contract/common.ts";
import { EventType } from "../../contract/events.ts";

/** Query-string schemas shared by the /v1 routes (docs/api.md "Conventions"). */

/** ISO 3166-1 alpha-2, any case (cn = CN). */
export const CountryParam = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 code such as CN")
  .meta({ example: "CN" })
  .transform((s) => s.toUpperCase());

/** Page size of catalogue lists: 1 to 1000, default 100. */
export const ListLimit = z.coerce.number().int().min(1).max(1000).default(100);

export const ListQuery = z.object({ cursor: Cursor.optional(), limit: ListLimit });

/** A list in one parameter, comma-separated (`types=a,b`), or the parameter repeated. */
export const commaList = <T extends z.ZodType>(item: T, max: number) =>
  z.preprocess(
    (value) =>
      (Array.isArray(value) ? value : [value])
        .flatMap((v) => String(v).split(","))
        .map((v) => v.trim())
        .filter(Boolean),
    z.array(item).min(1).max(max),
  );

export const EventTypes = commaList(EventType, 20);

export const OperatorIdParam = z.string().min(3).max(100).regex(/^[a-z]{2}\.[a-z0-9-]+$/, "must be an operator id such as cn.china-mobile");
export const NetworkIdParam = z.string().regex(/^\d{3}-\d{2,3}$/, "must be MCC-MNC such as 460-00");
export const Digits = (name: string, min: number, max: number) => z.string().regex(new RegExp(`^\\d{${min},${max}}$`), `${name} must be ${min} to ${max} digits`);
