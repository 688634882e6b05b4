import { z } from "zod";
import { idOf, IsoTime } from "./common.ts";
import { LIMITS } from "./limits.ts";

/**
 * Accounts on the wire (contract "Authentication endpoints"; docs/auth.md). The phone is accepted in
 * any mainland spelling and always answered in E.164.
 */
export const User = z
  .object({
    id: z.string(),
    /** Always null: e-mail sign-in is removed. */
    email: z.null(),
    phone: z.string(),
    name: z.string().nullable(),
    plan: z.string(),
    created_at: IsoTime,
  })
  .meta({ id: "User" });
export type User = z.infer<typeof User>;

/** `agreed` must be true; the versions are compared with the current ones by the service. */
export const AgreementFields = {
  agreed: z.boolean().refine((v) => v, { message: "must be true: accept the terms and privacy policy", params: { appCode: "AGREEMENT_REQUIRED" } }),
  terms_version: z.string().min(1).max(40),
  privacy_version: z.string().min(1).max(40),
};

/** A phone as typed by a person; validated and normalised by the service (INVALID_PHONE). */
export const PhoneInput = z.string().max(32);

export const SmsCodeRequest = z.strictObject({ phone: PhoneInput, ...AgreementFields }).meta({ id: "SmsCodeRequest" });

export const SmsCodeResponse = z
  .object({
    challenge_id: z.string(),
    /** Seconds the code stays valid (300). */
    expires_in: z.number().int(),
    /** Seconds before another code may be requested for this phone. */
    retry_after: z.number().int(),
  })
  .meta({ id: "SmsCodeResponse" });

export const LoginRequest = z
  .strictObject({
    phone: PhoneInput,
    challenge_id: idOf("chl"),
    code: z.string().regex(new RegExp(`^\\d{${LIMITS.smsCodeLength}}$`), `must be ${LIMITS.smsCodeLength} digits`).meta({ example: "123456" }),
    ...AgreementFields,
  })
  .meta({ id: "LoginRequest" });

export const LoginResponse = z.object({ user: User, created: z.boolean() }).meta({ id: "LoginResponse" });
export const MeResponse = z.object({ user: User }).meta({ id: "MeResponse" });
export const LogoutResponse = z.object({ logged_out: z.literal(true) }).meta({ id: "LogoutResponse" });

/**
 * The agreement a person accepts before a code is sent: the versions the sign-in requests must carry
 * (an addition to the contract, so a client can show the current versions instead of hard-coding them).
 */
export const AgreementResponse = z
  .object({
    terms_version: z.string(),
    privacy_version: z.string(),
  })
  .meta({ id: "AgreementResponse" });
