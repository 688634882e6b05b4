import type { z } from "zod";
import { ContactInquiryInput, ContactInquiryReceipt } from "../contract/contact.ts";

export const ZSubmitInquiryRequest = ContactInquiryInput;
export const ZSubmitInquiryResponse = ContactInquiryReceipt;
export type TSubmitInquiryRequest = z.infer<typeof ZSubmitInquiryRequest>;
export type TSubmitInquiryResponse = z.infer<typeof ZSubmitInquiryResponse>;
