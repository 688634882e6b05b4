import type { Clock } from "../clock.ts";
import { LIMITS } from "../contract/limits.ts";
import type { User } from "../contract/auth.ts";
import type { Db } from "../db/db.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { writeTransaction } from "../db/transaction.ts";
import { admitChallenge, assertSignInOpen, consumeChallenge, newChallenge, newCode, recordSendFailed, recordSent, verifyCode } from "./challenges.ts";
import { toE164 } from "./phone.ts";
import { createSession, endSession, findSession } from "./sessions.ts";
import type { AuthSettings } from "./settings.ts";
import type { CredentialRevocations } from "../access/credential-cache.ts";
import { SmsProviderError, type SmsSender } from "./sms/sender.ts";
import { findOrCreateUser, recordAgreements, toUser } from "./users.ts";

/** What the sign-in services need: plain values, no HTTP. */
export interface AccountsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  settings: AuthSettings;
  /** Null when SMS is not configured. */
  sms: SmsSender | null;
  otpPepper: string;
  /** Told when a session ends, after the change is committed. */
  revocations: Pick<CredentialRevocations, "sessionEnded">;
}

export interface Agreement {
  agreed: boolean;
  terms_version: string;
  privacy_version: string;
}

export interface Requester {
  ip: string | null;
  userAgent: string | null;
}

function requireSms(deps: AccountsDeps): SmsSender {
  if (!deps.sms) throw new AppError("SMS_NOT_CONFIGURED", "Sign-in by SMS is not available: no SMS provider is configured");
  return deps.sms;
}

function requirePhone(input: string): string {
  const phone = toE164(input);
  if (!phone) throw new AppError("INVALID_PHONE", "phone: must be a mainland-China mobile number, 11 digits starting 13-19 or the +86 form");
  return phone;
}

function requireAgreement(deps: AccountsDeps, agreement: Agreement): void {
  if (agreement.agreed !== true) throw new AppError("AGREEMENT_REQUIRED");
  const current = deps.settings.agreement;
  if (agreement.terms_version !== current.termsVersion || agreement.privacy_version !== current.privacyVersion) {
    throw new AppError("AGREEMENT_OUTDATED", `Accept the current agreements: terms_version ${current.termsVersion}, privacy_version ${current.privacyVersion}`);
  }
}

/**
 * POST /auth/sms/code: checks the number and the agreement, refuses a phone whose sign-in is locked,
 * then stores the challenge of a fresh code under the send limits (one transaction, locked per phone
 * and per address) and only then sends the SMS, so no code ever leaves without its stored challenge.
 * If the provider refuses, the challenge is marked unusable and the phone's resend interval given
 * back: a failed send charges no limit. Once sent, the phone's earlier challenge is superseded.
 */
export async function requestCode(
  deps: AccountsDeps,
  input: Agreement & { phone: string },
  from: Requester,
): Promise<{ challenge_id: string; expires_in: number; retry_after: number }> {
  const sms = requireSms(deps);
  const phone = requirePhone(input.phone);
  requireAgreement(deps, input);
  const limits = deps.settings.sendLimits;
  const now = deps.clock.now().getTime();
  // A code a locked phone could not use is not worth an SMS.
  await assertSignInOpen(deps.db, now, deps.settings.loginLimits, phone);
  const code = newCode();
  const challenge = newChallenge(now, phone, code, deps.otpPepper, from, deps.settings.agreement);
  const { previousSlot } = await admitChallenge(deps.db, { now, limits, challenge });
  try {
    await sms.send({ phone, code, ttlMinutes: LIMITS.smsCodeValiditySeconds / 60 });
  } catch (error) {
    await recordSendFailed(deps.db, deps.clock.now().getTime(), challenge, { claimedUntil: now + limits.resendIntervalMs, previous: previousSlot });
    if (error instanceof SmsProviderError) {
      if (error.kind === "throttled") throw AppError.rateLimited(limits.resendIntervalMs / 1000, "The SMS provider is limiting messages to this phone; try again later", "SMS_PROVIDER_THROTTLED");
      throw new AppError("SMS_PROVIDER_UNAVAILABLE", undefined, { cause: error });
    }
    deps.log.error({ err: error, provider: sms.name }, "SMS provider failed unexpectedly");
    throw new AppError("SMS_PROVIDER_UNAVAILABLE", undefined, { cause: error });
  }
  await recordSent(deps.db, challenge);
  deps.log.info({ phone, challenge_id: challenge.id, provider: sms.name }, "sign-in code sent");
  return { challenge_id: challenge.id, expires_in: LIMITS.smsCodeValiditySeconds, retry_after: limits.resendIntervalMs / 1000 };
}

/**
 * POST /auth/login: refuses a phone locked by too many wrong codes (SIGN_IN_LOCKED; the per-address
 * limit is the procedure's), verifies the code, then in one transaction consumes the challenge, registers the
 * user if the number is new, records the accepted agreements and opens a session. A session the
 * request already carried is ended, so a login never keeps a pre-existing (possibly planted) id.
 */
export async function signIn(
  deps: AccountsDeps,
  input: Agreement & { phone: string; challenge_id: string; code: string },
  from: Requester & { sessionToken: string | null },
): Promise<{ user: User; created: boolean; token: string; cookieExpiresAt: Date }> {
  requireSms(deps);
  const phone = requirePhone(input.phone);
  requireAgreement(deps, input);
  await assertSignInOpen(deps.db, deps.clock.now().getTime(), deps.settings.loginLimits, phone);
  await verifyCode(deps.db, deps.clock, deps.otpPepper, { challengeId: input.challenge_id, phone, code: input.code });
  const previous = from.sessionToken ? await findSession(deps.db, deps.clock, deps.settings.session, from.sessionToken) : null;
  const result = await writeTransaction(deps.db, async (trx, { afterCommit }) => {
    await consumeChallenge(trx, deps.clock.now().getTime(), input.challenge_id);
    const { user, created } = await findOrCreateUser(trx, deps.clock, phone);
    await recordAgreements(trx, deps.clock, user.id, deps.settings.agreement, from);
    if (previous) await endSession(trx, deps.clock, deps.revocations, previous.id);
    const opened = await createSession(trx, deps.clock, deps.settings.session, { userId: user.id, ip: from.ip, userAgent: from.userAgent });
    afterCommit(() => deps.log.info({ user_id: user.id, session_id: opened.session.id, created }, "signed in"));
    return { user, created, opened };
  });
  return { user: toUser(result.user), created: result.created, token: result.opened.token, cookieExpiresAt: new Date(result.opened.absoluteExpiresAt) };
}

/** POST /auth/logout: ends the session the cookie names, if it is live. */
export async function signOut(deps: AccountsDeps, sessionToken: string | null): Promise<void> {
  if (!sessionToken) return;
  const session = await findSession(deps.db, deps.clock, deps.settings.session, sessionToken);
  if (session) {
    await endSession(deps.db, deps.clock, deps.revocations, session.id);
    deps.log.info({ user_id: session.userId, session_id: session.id }, "signed out");
  }
}
