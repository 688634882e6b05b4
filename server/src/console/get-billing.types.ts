import { Billing, NoInput } from "../contract/console.ts";

export const ZGetBillingRequest = NoInput;
export const ZGetBillingResponse = Billing;
