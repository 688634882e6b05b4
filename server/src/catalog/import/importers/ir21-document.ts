import { z } from "zod";

/**
 * The machine-readable IR.21 document this service imports (docs/ir21-format.md): one operator
 * (organisation) with its networks, each with TADIG, MCC/MNC, technologies, E.164 (MSISDN) and
 * E.212 (IMSI) ranges and capabilities, plus the document's dates. The XML form (RAEX-like tag
 * names, see ir21-xml.ts) is converted to this shape and validated by the same schema, so both forms
 * report problems the same way.
 */

const digits = (name: string, min: number, max: number) =>
  z.string().regex(new RegExp(`^\\d{${min},${max}}$`), `${name} must be ${min === max ? min : `${min} to ${max}`} digits`);

/** A date (YYYY-MM-DD) or a full ISO 8601 time. */
const DateOrTime = z.union([z.iso.date(), z.iso.datetime({ offset: true })], { error: "must be a date (YYYY-MM-DD) or an ISO 8601 time" });

export const Tadig = z.string().regex(/^[A-Z]{3}[A-Z0-9]{2}$/, "must be a TADIG code: 3 letters (country) + 2 letters or digits, e.g. CHNCT");

export const CapabilityName = z.string().regex(/^[a-z0-9_]+(?:\.[a-z0-9_]+)+$/, "must be a dotted capability name such as volte.s8hr");
/** A structured entry (an MSRN range, a network element, MAP versions …): flat fields of text, numbers, flags or lists of texts. */
const StructuredEntry = z.record(z.string().max(64), z.union([z.string().max(300), z.number(), z.boolean(), z.array(z.string().max(100)).max(50)]));
const CapabilityValue = z.union([
  z.boolean(),
  z.string().max(200),
  z.number(),
  z.array(z.string().max(100)).max(50),
  z.array(StructuredEntry).max(1_000),
  StructuredEntry,
]);

export const MsisdnRange = z
  .strictObject({
    cc: digits("cc", 1, 3),
    ndc: z.string().regex(/^\d{0,6}$/, "ndc must be up to 6 digits"),
    sn_start: digits("sn_start", 1, 12),
    sn_stop: digits("sn_stop", 1, 12),
    kind: z.enum(["mobile", "fixed", "other"]).default("mobile"),
  })
  .superRefine((r, ctx) => {
    if (r.sn_start.length !== r.sn_stop.length) ctx.addIssue({ code: "custom", path: ["sn_stop"], message: "sn_stop must have as many digits as sn_start" });
    else if (r.sn_start > r.sn_stop) ctx.addIssue({ code: "custom", path: ["sn_stop"], message: "sn_stop must not be below sn_start" });
    if (r.cc.length + r.ndc.length + r.sn_start.length > 15) ctx.addIssue({ code: "custom", path: ["sn_start"], message: "cc + ndc + sn is longer than 15 digits (E.164)" });
  });

export const ImsiRange = z
  .strictObject({
    msin_start: digits("msin_start", 1, 10),
    msin_stop: digits("msin_stop", 1, 10),
  })
  .superRefine((r, ctx) => {
    if (r.msin_start.length !== r.msin_stop.length) ctx.addIssue({ code: "custom", path: ["msin_stop"], message: "msin_stop must have as many digits as msin_start" });
    else if (r.msin_start > r.msin_stop) ctx.addIssue({ code: "custom", path: ["msin_stop"], message: "msin_stop must not be below msin_start" });
  });

export const Ir21Network = z.strictObject({
  tadig: Tadig,
  name: z.string().trim().min(1).max(200),
  network_type: z.string().trim().min(1).max(24).default("terrestrial"),
  mcc: digits("mcc", 3, 3),
  mnc: digits("mnc", 2, 3),
  technologies: z.array(z.string().trim().min(1).max(24)).max(20).default([]),
  msisdn_ranges: z.array(MsisdnRange).max(10_000).default([]),
  imsi_ranges: z.array(ImsiRange).max(10_000).default([]),
  capabilities: z.record(CapabilityName, CapabilityValue).default({}),
  /** Per capability, the effective date of the IR.21 section it comes from (overrides `effective_date`). */
  capability_dates: z.record(CapabilityName, DateOrTime).default({}),
  effective_date: DateOrTime.optional(),
});

export const Ir21Document = z
  .strictObject({
    format: z.literal("ir21-json/1", { error: 'format must be "ir21-json/1"' }),
    /** True for hand-made sample documents: their records say so in `source`. */
    sample: z.boolean().default(false),
    document: z.strictObject({
      sender_tadig: Tadig,
      created_at: DateOrTime,
      effective_date: DateOrTime,
      schema_version: z.string().max(32).optional(),
      /** The sender's own revision of the file (RAEX header); kept in the source metadata. */
      file_version: z.string().max(32).optional(),
      /**
       * True when the document is the operator's complete data: in mixed mode it then replaces every
       * network, range and capability the reference data has for the operator, not only those it lists.
       */
      complete: z.boolean().default(false),
      license: z.string().max(200).optional(),
    }),
    organisation: z.strictObject({
      name: z.string().trim().min(1).max(200),
      /** ISO 3166 alpha-3 as in IR.21 CountryInitials (e.g. CHN), or alpha-2. */
      country: z.string().regex(/^[A-Z]{2,3}$/, "must be an ISO 3166 alpha-3 (CHN) or alpha-2 (CN) code"),
      name_local: z.string().trim().min(1).max(200).optional(),
    }),
    networks: z.array(Ir21Network).min(1, "a document lists at least one network").max(100),
  })
  .superRefine((doc, ctx) => {
    const seen = new Map<string, number>();
    doc.networks.forEach((n, i) => {
      const key = `${n.mcc}-${n.mnc}`;
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["networks", i, "mnc"], message: `network ${key} is listed twice (also networks.${seen.get(key)})` });
      seen.set(key, i);
    });
  });

export type Ir21Document = z.infer<typeof Ir21Document>;
export type Ir21DocumentInput = z.input<typeof Ir21Document>;
