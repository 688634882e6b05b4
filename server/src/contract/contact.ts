import { z } from "zod";

/** Bounds of the contact form (docs/api.md "Contact"); every field is required. */
export const CONTACT_BOUNDS = {
  name: { min: 1, max: 100 },
  email: { max: 254 },
  company: { min: 1, max: 200 },
  message: { min: 10, max: 5000 },
} as const;

const trimmed = (min: number, max: number) => z.string().trim().min(min).max(max);

export const ContactInquiryInput = z
  .strictObject({
    name: trimmed(CONTACT_BOUNDS.name.min, CONTACT_BOUNDS.name.max),
    email: z.string().trim().max(CONTACT_BOUNDS.email.max).pipe(z.email()),
    company: trimmed(CONTACT_BOUNDS.company.min, CONTACT_BOUNDS.company.max),
    message: trimmed(CONTACT_BOUNDS.message.min, CONTACT_BOUNDS.message.max),
  })
  .meta({ id: "ContactInquiryInput" });

export const ContactInquiryReceipt = z
  .object({ id: z.string(), received: z.literal(true) })
  .meta({ id: "ContactInquiryReceipt" });
