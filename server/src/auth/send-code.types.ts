import type { z } from "zod";
import { SmsCodeRequest, SmsCodeResponse } from "../contract/auth.ts";

export const ZSendCodeRequest = SmsCodeRequest;
export const ZSendCodeResponse = SmsCodeResponse;
export type TSendCodeRequest = z.infer<typeof ZSendCodeRequest>;
export type TSendCodeResponse = z.infer<typeof ZSendCodeResponse>;
