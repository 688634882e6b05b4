import type { z } from "zod";
import { AgreementResponse } from "../contract/auth.ts";

export const ZGetAgreementResponse = AgreementResponse;
export type TGetAgreementResponse = z.infer<typeof ZGetAgreementResponse>;
