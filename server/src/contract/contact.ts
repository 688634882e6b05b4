import { z } from "zod";
import { plainText } from "./text.ts";

/** Bounds of the contact form (docs/api.md "Contact"); every field is required. */
export const CONTACT_BOUNDS = {
  name: { min: 1, max: 100 },
  email: { max: 254 },
  company: { min: 1, max: 200 },
  message: { min: 10, max: 5000 },
} as const;

/** A trimmed single line (name, company) or, `multiline`, a message body; control and bidi-override characters refused. */
const trimmed = (min: number, max: number, options: { multiline?: boolean } = {}) => z.string().trim().min(min).max(max).check(plainText(options));

export const ContactInquiryInput = z
  .strictObject({
    name: trimmed(CONTACT_BOUNDS.name.min, CONTACT_BOUNDS.name.max),
    email: z.string().trim().max(CONTACT_BOUNDS.email.max).pipe(z.email()),
    company: trimmed(CONTACT_BOUNDS.company.min, CONTACT_BOUNDS.company.max),
    message: trimmed(CONTACT_BOUNDS.message.min, CONTACT_BOUNDS.message.max, { multiline: true }),
  })
  .meta({ id: "ContactInquiryInput" });

export const ContactInquiryReceipt = z
  .object({ id: z.string(), received: z.literal(true) })
  .meta({ id: "ContactInquiryReceipt" });
