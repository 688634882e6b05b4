import { hash, timingSafeEqual } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/db.ts";
import { writeTransaction } from "../db/transaction.ts";
import { AppError } from "../errors.ts";
import { newId, randomToken } from "../ids.ts";
import { credentialHash, type CachedSession, type CredentialCache, type CredentialRevocations } from "../access/credential-cache.ts";

export interface SessionLifetimes {
  idleMs: number;
  absoluteMs: number;
  /** last_seen_at (and so the idle expiry) is written at most this often. */
  refreshIntervalMs: number;
}

/** A session as its owner may see it. */
export interface ActiveSession {
  id: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
}

const sha256 = (text: string) => hash("sha256", text, "buffer");

/** Cookie token: `<session id>.<secret>`; the id is public (listings), the secret 256 random bits. */
function parseToken(token: string): { id: string; secret: string } | null {
  const match = /^(ses_[0-9a-z]{10,40})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

/**
 * Opens a session and returns the cookie token, shown only here. The database keeps the SHA-256 of
 * the secret; the cookie expires with the absolute lifetime, the server enforces the idle one.
 */
export async function createSession(
  db: Db,
  clock: Clock,
  lifetimes: SessionLifetimes,
  owner: { userId: string; ip: string | null; userAgent: string | null },
): Promise<{ token: string; session: ActiveSession; absoluteExpiresAt: number }> {
  const now = clock.now().getTime();
  const id = newId("ses", now);
  const secret = randomToken(32);
  const absoluteExpiresAt = now + lifetimes.absoluteMs;
  const expiresAt = Math.min(now + lifetimes.idleMs, absoluteExpiresAt);
  await db
    .insertInto("sessions")
    .values({
      id,
      user_id: owner.userId,
      secret_hash: sha256(secret).toString("hex"),
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
      absolute_expires_at: absoluteExpiresAt,
      revoked_at: null,
      ip: owner.ip,
      user_agent: owner.userAgent?.slice(0, 512) ?? null,
    })
    .execute();
  return { token: `${id}.${secret}`, session: { id, userId: owner.userId, createdAt: now, expiresAt }, absoluteExpiresAt };
}

/**
 * The live session a cookie token names, or null when it is malformed, unknown, tampered, revoked or
 * expired, straight from the database (sign-in and sign-out use this; requests use
 * {@link createSessionLookup}). Slides the idle expiry, writing at most once per refresh interval.
 */
export async function findSession(db: Db, clock: Clock, lifetimes: SessionLifetimes, token: string): Promise<ActiveSession | null> {
  const parsed = parseToken(token);
  const live = parsed ? await readLiveSession(db, clock, lifetimes, parsed) : null;
  return live ? toActive(live) : null;
}

/**
 * Resolves session cookies for requests through the credential cache: a cached session that is
 * still live by the (domain) clock and needs no sliding refresh is answered without the database;
 * anything else (unknown, apparently expired, refresh due) is read and refreshed as
 * {@link findSession} does. Ended sessions leave the cache through the revocation calls.
 */
export function createSessionLookup(db: Db, clock: Clock, lifetimes: SessionLifetimes, cache: CredentialCache): (token: string) => Promise<ActiveSession | null> {
  return async (token) => {
    const parsed = parseToken(token);
    if (!parsed) return null;
    const hash = credentialHash(token);
    const known = cache.get(hash);
    const now = clock.now().getTime();
    if (known?.kind === "session" && known.expiresAt > now && now - known.lastSeenAt < lifetimes.refreshIntervalMs) return toActive(known);
    const { value: live, generation } = await cache.read(hash, () => readLiveSession(db, clock, lifetimes, parsed));
    if (!live) {
      cache.delete(hash);
      return null;
    }
    cache.set(hash, live, generation);
    return toActive(live);
  };
}

const toActive = (s: CachedSession): ActiveSession => ({ id: s.id, userId: s.userId, createdAt: s.createdAt, expiresAt: s.expiresAt });

async function readLiveSession(db: Db, clock: Clock, lifetimes: SessionLifetimes, parsed: { id: string; secret: string }): Promise<CachedSession | null> {
  const row = await db.selectFrom("sessions").selectAll().where("id", "=", parsed.id).executeTakeFirst();
  if (!row) return null;
  // Compare before looking at state, so timing says nothing about which sessions exist.
  const matches = timingSafeEqual(sha256(parsed.secret), Buffer.from(row.secret_hash, "hex"));
  const now = clock.now().getTime();
  if (!matches || row.revoked_at !== null || row.expires_at <= now) return null;
  let expiresAt = row.expires_at;
  let lastSeenAt = row.last_seen_at;
  if (now - row.last_seen_at >= lifetimes.refreshIntervalMs) {
    expiresAt = Math.min(now + lifetimes.idleMs, row.absolute_expires_at);
    lastSeenAt = now;
    // Conditional: of concurrent refreshes (any instance) one writes; the others' values are as good.
    await writeTransaction(db, (trx) =>
      trx.updateTable("sessions").set({ last_seen_at: now, expires_at: expiresAt }).where("id", "=", row.id).where("last_seen_at", "=", row.last_seen_at).execute(),
    );
  }
  return { kind: "session", id: row.id, userId: row.user_id, createdAt: row.created_at, lastSeenAt, expiresAt, absoluteExpiresAt: row.absolute_expires_at };
}

/** The account's live sessions, newest first. */
export async function listSessions(db: Db, clock: Clock, userId: string): Promise<ActiveSession[]> {
  const rows = await db
    .selectFrom("sessions")
    .select(["id", "user_id", "created_at", "expires_at"])
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", clock.now().getTime())
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map((r) => ({ id: r.id, userId: r.user_id, createdAt: r.created_at, expiresAt: r.expires_at }));
}

/**
 * Revokes one of the account's live sessions (at once in every instance: the credential caches are
 * told after the update). Another account's id, an unknown one, or one already ended is NOT_FOUND, so
 * ids of other accounts cannot be probed.
 */
export async function revokeSession(db: Db, clock: Clock, revocations: Pick<CredentialRevocations, "sessionEnded">, userId: string, sessionId: string): Promise<void> {
  const now = clock.now().getTime();
  await writeTransaction(db, async (trx, { afterCommit }) => {
    const result = await trx
      .updateTable("sessions")
      .set({ revoked_at: now })
      .where("id", "=", sessionId)
      .where("user_id", "=", userId)
      .where("revoked_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw new AppError("NOT_FOUND", "No active session with this id");
    afterCommit(() => revocations.sessionEnded(sessionId));
  });
}

/** Revokes every live session of the account except `keepSessionId`; API keys are not touched. */
export async function revokeOtherSessions(db: Db, clock: Clock, revocations: Pick<CredentialRevocations, "otherSessionsEnded">, userId: string, keepSessionId: string): Promise<number> {
  const now = clock.now().getTime();
  return writeTransaction(db, async (trx, { afterCommit }) => {
    const result = await trx
      .updateTable("sessions")
      .set({ revoked_at: now })
      .where("user_id", "=", userId)
      .where("id", "!=", keepSessionId)
      .where("revoked_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    afterCommit(() => revocations.otherSessionsEnded(userId, keepSessionId));
    return Number(result.numUpdatedRows);
  });
}

/**
 * Ends a session by id whoever owns it (logout, login rotation); a no-op when already ended. Inside a
 * caller's transaction it joins it; the credential caches are told once it has committed.
 */
export async function endSession(db: Db, clock: Clock, revocations: Pick<CredentialRevocations, "sessionEnded">, sessionId: string): Promise<void> {
  await writeTransaction(db, async (trx, { afterCommit }) => {
    await trx.updateTable("sessions").set({ revoked_at: clock.now().getTime() }).where("id", "=", sessionId).where("revoked_at", "is", null).execute();
    afterCommit(() => revocations.sessionEnded(sessionId));
  });
}
