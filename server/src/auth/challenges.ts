import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import type { Clock } from "../clock.ts";
import { LIMITS } from "../contract/limits.ts";
import { dialectOf, insertUnlessDuplicate, type Db } from "../db/db.ts";
import { forUpdate, writeLock, writeTransaction, type WriteTrx } from "../db/transaction.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { LoginLimits, SendLimits } from "./settings.ts";
import type { SmsChallengeTable } from "./tables.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const VALIDITY_MS = LIMITS.smsCodeValiditySeconds * 1000;

/** HMAC-SHA256 binding the code to its challenge and phone; without the pepper a dump reveals nothing. */
export function codeMac(pepper: string, challengeId: string, phone: string, code: string): string {
  return createHmac("sha256", pepper).update(`${challengeId}:${phone}:${code}`).digest("hex");
}

/** A uniformly random code of the contract's length (crypto.randomInt rejects modulo bias). */
export function newCode(): string {
  return String(randomInt(0, 10 ** LIMITS.smsCodeLength)).padStart(LIMITS.smsCodeLength, "0");
}

function limited(retryAfterMs: number, message: string): AppError {
  return AppError.rateLimited(retryAfterMs / 1000, message, "SMS_SEND_LIMITED");
}

/** The write lock of the service-wide cap (its `write_locks` row is created by migration 0203). */
const SMS_SERVICE_LOCK = "sms-service";

/**
 * The rolling-window send caps, counted from the challenges themselves (so they hold across instances
 * and follow the injected clock): per phone per hour and per day, per client address per hour and per
 * day, and for the whole service per day (SMS pumping costs money). A challenge whose SMS the provider
 * refused is not counted. Throws SMS_SEND_LIMITED with the seconds until the oldest counted send
 * leaves its window. Exact per phone and per address when run under their locks ({@link admitChallenge});
 * the service-wide cap is counted under its own write lock, taken here last (after the phone's and
 * the address's, so no two requests wait on each other crosswise) and only by a request the phone's
 * and the address's caps let through.
 */
export async function assertWithinSendCaps(trx: WriteTrx, now: number, limits: SendLimits, phone: string, ip: string | null): Promise<void> {
  const windows: Array<{ column: "phone" | "ip" | null; value: string | null; windowMs: number; max: number; what: string }> = [
    { column: "phone", value: phone, windowMs: HOUR_MS, max: limits.phonePerHour, what: "codes to this phone this hour" },
    { column: "phone", value: phone, windowMs: DAY_MS, max: limits.phonePerDay, what: "codes to this phone today" },
    { column: "ip", value: ip, windowMs: HOUR_MS, max: limits.ipPerHour, what: "codes from this address this hour" },
    { column: "ip", value: ip, windowMs: DAY_MS, max: limits.ipPerDay, what: "codes from this address today" },
    { column: null, value: null, windowMs: DAY_MS, max: limits.globalPerDay, what: "codes sent by the service today" },
  ];
  for (const w of windows) {
    if (w.column !== null && w.value === null) continue;
    // Every send counts towards the service's cap: one request at a time counts it and stores its
    // challenge, on every instance and Galera node (a written row, writeLock), so parallel sends
    // cannot pass it. The lock is held to the commit: a few milliseconds per send.
    if (w.column === null) await writeLock(trx, SMS_SERVICE_LOCK);
    let query = trx
      .selectFrom("sms_challenges")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min<number>("created_at").as("oldest")])
      .where("created_at", ">", now - w.windowMs)
      .where("send_failed_at", "is", null);
    if (w.column !== null) query = query.where(w.column, "=", w.value!);
    const { n, oldest } = await query.executeTakeFirstOrThrow();
    if (Number(n) >= w.max) throw limited(Number(oldest) + w.windowMs - now, `Too many ${w.what}; try again later`);
  }
}

/**
 * Stores the challenge of a code about to be sent, if the phone and the client address may have one
 * now, and charges them: the phone's resend interval and (by the stored row itself) the caps of
 * {@link assertWithinSendCaps}. Runs under a lock on the phone's `sms_throttle` row and then on the
 * address's `sms_address_gate` row (always in that order, so two requests never wait on each other
 * crosswise), so the interval and the per-phone and per-address caps are decided by one request at a
 * time, on every instance; the service-wide daily cap then under the service's lock, last. The lock
 * rows are created beforehand, in their own transaction, because inserting them under the lock would
 * make MySQL take gap locks. Returns what the interval was, to give it back if the send fails
 * ({@link recordSendFailed}).
 */
export async function admitChallenge(db: Db, input: { now: number; limits: SendLimits; challenge: SmsChallengeTable }): Promise<{ previousSlot: number }> {
  const { phone, ip } = input.challenge;
  // The lock rows of a phone or address idle for a day are purged (auth/retention.ts): one purged
  // between the two transactions is created again. A purge runs hourly, so twice in a row is rare.
  for (let attempt = 1; ; attempt++) {
    await writeTransaction(db, async (trx) => {
      await insertUnlessDuplicate(trx, trx.insertInto("sms_throttle").values({ phone, next_send_at: 0 }));
      if (ip !== null) await insertUnlessDuplicate(trx, trx.insertInto("sms_address_gate").values({ ip }));
    });
    const admitted = await writeTransaction(db, (trx) => admitUnderLocks(trx, input));
    if (admitted) return admitted;
    if (attempt >= 3) throw new AppError("SERVICE_UNAVAILABLE", "The sign-in code could not be stored; try again", { headers: { "Retry-After": "1" } });
  }
}

/**
 * The locked half of {@link admitChallenge}: locks the phone's row, then the address's, then (in
 * {@link assertWithinSendCaps}) the service's; checks and charges. Null when the phone's or the
 * address's row is missing (purged since it was created), with nothing locked past it or written.
 */
export async function admitUnderLocks(trx: WriteTrx, input: { now: number; limits: SendLimits; challenge: SmsChallengeTable }): Promise<{ previousSlot: number } | null> {
  const { now, limits, challenge } = input;
  const { phone, ip } = challenge;
  const gate = await forUpdate(trx, trx.selectFrom("sms_throttle").select("next_send_at").where("phone", "=", phone)).executeTakeFirst();
  if (!gate) return null;
  // The address gate is written, not only locked, so its caps hold across Galera nodes too (writeLock).
  if (ip !== null) {
    const address = await forUpdate(trx, trx.selectFrom("sms_address_gate").select("ip").where("ip", "=", ip)).executeTakeFirst();
    if (!address) return null;
    if (dialectOf(trx) === "mysql") await writeLock(trx, `sms-ip:${ip}`);
  }
  if (gate.next_send_at > now) throw limited(Math.max(1000, gate.next_send_at - now), "A code was just sent to this phone; wait before asking for another");
  await assertWithinSendCaps(trx, now, limits, phone, ip);
  await trx.insertInto("sms_challenges").values(challenge).execute();
  await trx.updateTable("sms_throttle").set({ next_send_at: now + limits.resendIntervalMs }).where("phone", "=", phone).execute();
  return { previousSlot: gate.next_send_at };
}

/**
 * The provider took the message: the phone's earlier open challenges are superseded, so only the code
 * just sent is usable. (Until this commits, an earlier code still works: its holder may be the one
 * whose new SMS is late.)
 */
export async function recordSent(db: Db, challenge: SmsChallengeTable): Promise<void> {
  await writeTransaction(db, (trx) =>
    trx
      .updateTable("sms_challenges")
      .set({ superseded_at: challenge.created_at })
      .where("phone", "=", challenge.phone)
      .where("id", "!=", challenge.id)
      .where("created_at", "<=", challenge.created_at)
      .where("consumed_at", "is", null)
      .where("superseded_at", "is", null)
      .execute(),
  );
}

/**
 * The provider refused the message: the challenge is marked unusable (no code for it exists anywhere,
 * and it counts for no cap) and the phone's resend interval is given back, unless another send has
 * taken it since; the phone's earlier challenge, if any, stays valid.
 */
export async function recordSendFailed(db: Db, now: number, challenge: SmsChallengeTable, slot: { claimedUntil: number; previous: number }): Promise<void> {
  await writeTransaction(db, async (trx) => {
    await trx.updateTable("sms_challenges").set({ send_failed_at: now }).where("id", "=", challenge.id).execute();
    await trx
      .updateTable("sms_throttle")
      .set({ next_send_at: slot.previous })
      .where("phone", "=", challenge.phone)
      .where("next_send_at", "=", slot.claimedUntil)
      .execute();
  });
}

export function newChallenge(now: number, phone: string, code: string, pepper: string, from: { ip: string | null }, versions: { termsVersion: string; privacyVersion: string }): SmsChallengeTable {
  const id = newId("chl", now);
  return {
    id,
    phone,
    code_mac: codeMac(pepper, id, phone, code),
    attempts: 0,
    created_at: now,
    expires_at: now + VALIDITY_MS,
    consumed_at: null,
    superseded_at: null,
    send_failed_at: null,
    ip: from.ip,
    terms_version: versions.termsVersion,
    privacy_version: versions.privacyVersion,
  };
}

/**
 * The per-phone lockout across challenges: the contract's five attempts are per challenge, and a new
 * code gives five more, so wrong codes are also capped per phone over a rolling window (default 10 an
 * hour). Counted from the challenges themselves, like the send caps (every instance agrees, restarts
 * keep it, the injected clock drives it): the attempts on the phone's unconsumed challenges created in
 * the window and after its last successful sign-in, which resets the count. A challenge is tried only
 * in its 300 s of validity, so a wrong code counts from its challenge's creation, at most 300 s early.
 * Throws SIGN_IN_LOCKED with the seconds until enough counted attempts leave the window.
 *
 * Checked before an attempt is counted: concurrent attempts can pass it together, but only on the
 * phone's one open challenge, so the count can exceed the limit by at most its four remaining attempts.
 */
export async function assertSignInOpen(db: Db, now: number, limits: LoginLimits, phone: string): Promise<void> {
  const since = now - limits.phoneWindowMs;
  const { lastSuccess } = await db
    .selectFrom("sms_challenges")
    .select((eb) => eb.fn.max<number>("created_at").as("lastSuccess"))
    .where("phone", "=", phone)
    .where("created_at", ">", since)
    .where("consumed_at", "is not", null)
    .executeTakeFirstOrThrow();
  const counted = await db
    .selectFrom("sms_challenges")
    .select(["created_at", "attempts"])
    .where("phone", "=", phone)
    .where("created_at", ">", lastSuccess === null ? since : Math.max(since, Number(lastSuccess)))
    .where("consumed_at", "is", null)
    .where("attempts", ">", 0)
    .orderBy("created_at")
    .execute();
  let wrong = counted.reduce((sum, c) => sum + c.attempts, 0);
  if (wrong < limits.phoneFailures) return;
  // Rolling window: the lock lifts once the oldest challenges' attempts have left it.
  let liftsAt = now;
  for (const challenge of counted) {
    wrong -= challenge.attempts;
    liftsAt = challenge.created_at + limits.phoneWindowMs;
    if (wrong < limits.phoneFailures) break;
  }
  throw AppError.rateLimited(
    (liftsAt - now) / 1000,
    `Too many wrong codes for this phone (${limits.phoneFailures} within ${Math.round(limits.phoneWindowMs / 60_000)} minutes); sign-in for it is locked, retry after the Retry-After seconds`,
    "SIGN_IN_LOCKED",
  );
}

/** Why a challenge cannot be verified any more, in the order a user can act on. */
function refusal(row: SmsChallengeTable, now: number): AppError | null {
  // Its SMS never left: nobody holds a code for it, and its id was never answered to anyone.
  if (row.send_failed_at !== null) return new AppError("CHALLENGE_NOT_FOUND");
  if (row.consumed_at !== null) return new AppError("CHALLENGE_CONSUMED");
  if (row.superseded_at !== null) return new AppError("CHALLENGE_SUPERSEDED");
  if (row.attempts >= LIMITS.wrongCodeAttempts) return new AppError("CODE_ATTEMPTS_EXHAUSTED");
  if (row.expires_at <= now) return new AppError("CHALLENGE_EXPIRED");
  return null;
}

async function loadChallenge(db: Db, id: string): Promise<SmsChallengeTable> {
  const row = await db.selectFrom("sms_challenges").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw new AppError("CHALLENGE_NOT_FOUND");
  return row;
}

/**
 * Checks a code against its challenge. The attempt is counted first, by a conditional UPDATE that
 * only succeeds while fewer than five attempts were made, and only then compared in constant time:
 * concurrent guesses cannot exceed five, and a sixth attempt fails even with the right code.
 */
export async function verifyCode(db: Db, clock: Clock, pepper: string, attempt: { challengeId: string; phone: string; code: string }): Promise<void> {
  const row = await loadChallenge(db, attempt.challengeId);
  if (row.phone !== attempt.phone) throw new AppError("CHALLENGE_PHONE_MISMATCH");
  const now = clock.now().getTime();
  const stateError = refusal(row, now);
  if (stateError) throw stateError;
  const counted = await writeTransaction(db, (trx) =>
    trx
      .updateTable("sms_challenges")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("id", "=", row.id)
      .where("consumed_at", "is", null)
      .where("superseded_at", "is", null)
      .where("send_failed_at", "is", null)
      .where("expires_at", ">", now)
      .where("attempts", "<", LIMITS.wrongCodeAttempts)
      .executeTakeFirst(),
  );
  if (Number(counted.numUpdatedRows) !== 1) throw refusal(await loadChallenge(db, row.id), now) ?? new AppError("CHALLENGE_CONSUMED");
  const expected = Buffer.from(row.code_mac, "hex");
  const given = Buffer.from(codeMac(pepper, row.id, attempt.phone, attempt.code), "hex");
  if (!timingSafeEqual(expected, given)) {
    const { attempts } = await db.selectFrom("sms_challenges").select("attempts").where("id", "=", row.id).executeTakeFirstOrThrow();
    const left = Math.max(0, LIMITS.wrongCodeAttempts - attempts);
    if (left === 0) throw new AppError("CODE_ATTEMPTS_EXHAUSTED", "Wrong code; no attempts left, request a new code");
    throw new AppError("CODE_INCORRECT", `Wrong code; ${left} attempt${left === 1 ? "" : "s"} left`);
  }
}

/** Marks a verified challenge used; exactly one caller can win, the others get CHALLENGE_CONSUMED. */
export async function consumeChallenge(db: Db, now: number, challengeId: string): Promise<void> {
  const result = await db
    .updateTable("sms_challenges")
    .set({ consumed_at: now })
    .where("id", "=", challengeId)
    .where("consumed_at", "is", null)
    .where("superseded_at", "is", null)
    .where("send_failed_at", "is", null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new AppError("CHALLENGE_CONSUMED");
}
