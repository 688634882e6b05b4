import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";
import type { Clock } from "../clock.ts";
import { API_KEY_PREFIX } from "../contract/api-keys.ts";
import { toIso, toIsoOrNull } from "../contract/common.ts";
import type { ApiKeySummary } from "../contract/console.ts";
import type { Db } from "../db/db.ts";
import { lockAccount, writeTransaction } from "../db/transaction.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { ApiKeyVerifier, VerifiedKey } from "../access/resolver.ts";
import { credentialHash, credentialHashOn, type CachedApiKey, type CachedCredential, type CredentialCache, type CredentialRevocations } from "../access/credential-cache.ts";
import type { ApiKeyTable } from "./tables.ts";

/*
 * Key format (docs/console.md "API keys"): `ir21_` + 43 base62 characters carrying 32 random bytes
 * (256 bits) + 6 base62 characters of the CRC32 of those 43, e.g. `ir21_3Xk…Qz0aB1c2`. The checksum
 * lets scanners and the server reject typos and random strings without a database lookup.
 */
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_CHARS = 43;
const CHECKSUM_CHARS = 6;
const KEY_SHAPE = new RegExp(`^${API_KEY_PREFIX}([0-9A-Za-z]{${SECRET_CHARS}})([0-9A-Za-z]{${CHECKSUM_CHARS}})$`);
/** How much of the key a listing shows. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 7;
/** last_used_at is written at most this often per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

function base62(value: bigint, width: number): string {
  let out = "";
  let rest = value;
  while (rest > 0n) {
    out = BASE62[Number(rest % 62n)] + out;
    rest /= 62n;
  }
  return out.padStart(width, "0");
}

const checksumOf = (body: string) => base62(BigInt(crc32(body)), CHECKSUM_CHARS);
/** The stored digest of a key (hex SHA-256), which is also its credential-cache key. */
const sha256 = credentialHash;

/** A new random key in the documented format. */
export function generateApiKey(): string {
  const body = base62(BigInt(`0x${randomBytes(32).toString("hex")}`), SECRET_CHARS);
  return `${API_KEY_PREFIX}${body}${checksumOf(body)}`;
}

/** True when the text has the key format and its checksum matches (no database involved). */
export function isWellFormedApiKey(key: string): boolean {
  const match = KEY_SHAPE.exec(key);
  return match !== null && checksumOf(match[1]!) === match[2];
}

export function toSummary(row: ApiKeyTable): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: toIso(row.created_at),
    revoked_at: toIsoOrNull(row.revoked_at),
    last_used_at: toIsoOrNull(row.last_used_at),
  };
}

/**
 * Creates a key for the account. The full key is returned here only; the database keeps its SHA-256
 * and a display prefix. An account holds at most `maxActive` unrevoked keys (409 beyond): counted and
 * inserted under the account's lock, so parallel requests on any instance cannot pass the cap.
 */
export async function createApiKey(db: Db, clock: Clock, userId: string, name: string, maxActive: number): Promise<{ key: string; item: ApiKeySummary }> {
  const key = generateApiKey();
  const row = await writeTransaction(db, async (trx) => {
    if (!(await lockAccount(trx, userId))) throw new AppError("UNAUTHORIZED", "The account no longer exists; sign in again");
    const { n } = await trx
      .selectFrom("api_keys")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", userId)
      .where("revoked_at", "is", null)
      .executeTakeFirstOrThrow();
    if (Number(n) >= maxActive) throw new AppError("API_KEY_LIMIT_REACHED", `An account can hold ${maxActive} active API keys; revoke one first`);
    const now = clock.now().getTime();
    const row: ApiKeyTable = {
      id: newId("key", now),
      user_id: userId,
      name,
      prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
      key_hash: sha256(key),
      created_at: now,
      revoked_at: null,
      last_used_at: null,
    };
    await trx.insertInto("api_keys").values(row).execute();
    return row;
  });
  return { key, item: toSummary(row) };
}

/** The account's keys, revoked ones included, newest first. */
export async function listApiKeys(db: Db, userId: string): Promise<ApiKeySummary[]> {
  const rows = await db.selectFrom("api_keys").selectAll().where("user_id", "=", userId).orderBy("created_at", "desc").orderBy("id", "desc").execute();
  return rows.map(toSummary);
}

/**
 * Revokes one of the account's keys; it stops working on the next request, in every instance (the
 * credential caches are told after the update commits). Revoking a revoked key changes nothing (and
 * tells the caches again); another account's or an unknown id is NOT_FOUND.
 */
export async function revokeApiKey(db: Db, clock: Clock, revocations: Pick<CredentialRevocations, "apiKeyRevoked">, userId: string, keyId: string): Promise<void> {
  await writeTransaction(db, async (trx, { afterCommit }) => {
    const row = await trx.selectFrom("api_keys").select(["id", "revoked_at"]).where("id", "=", keyId).where("user_id", "=", userId).executeTakeFirst();
    if (!row) throw new AppError("NOT_FOUND", "No API key with this id");
    if (row.revoked_at === null) {
      await trx.updateTable("api_keys").set({ revoked_at: clock.now().getTime() }).where("id", "=", keyId).where("revoked_at", "is", null).execute();
    }
    afterCommit(() => revocations.apiKeyRevoked(keyId));
  });
}

/**
 * Checks `X-API-Key` values: the credential cache, else format and checksum (no lookup for garbage),
 * then the unique hash index. Unknown and revoked keys are never cached. last_used_at is
 * written at most once a minute per key, decided from the cached value (no read per request).
 * A cached key with no last_used_at write due is answered at once, without a promise (the hot path
 * of every keyed request); the cache's checks (TTL, revocation, the bus) run the same either way.
 */
export function createApiKeyVerifier(db: Db, clock: Clock, cache: CredentialCache): ApiKeyVerifier {
  return {
    verify(key, connection) {
      // The same key on a keep-alive connection is hashed once (credential-cache.ts).
      const hash = connection ? credentialHashOn(connection, key) : sha256(key);
      const known = cache.get(hash);
      if (known?.kind === "apiKey" && known.lastUsedAt !== null && clock.nowMs() - known.lastUsedAt < LAST_USED_RESOLUTION_MS) {
        return { userId: known.userId, keyId: known.id };
      }
      return verifyRead(key, hash, known);
    },
  };

  async function verifyRead(key: string, hash: string, cached: CachedCredential | undefined): Promise<VerifiedKey | null> {
    let known = cached;
    if (known?.kind !== "apiKey") {
      // A cached hash is a key that passed this before; anything else is checked before the lookup.
      if (!isWellFormedApiKey(key)) return null;
      // Requests with this key meanwhile share the read (and so the last_used_at claim below).
      const read = await cache.read(hash, async () => {
        const row = await db.selectFrom("api_keys").select(["id", "user_id", "revoked_at", "last_used_at"]).where("key_hash", "=", hash).executeTakeFirst();
        return !row || row.revoked_at !== null ? null : ({ kind: "apiKey", id: row.id, userId: row.user_id, lastUsedAt: row.last_used_at } satisfies CachedApiKey);
      });
      if (!read.value) return null;
      known = read.value;
      cache.set(hash, known, read.generation);
    }
    const now = clock.now().getTime();
    if (known.lastUsedAt === null || now - known.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
      // Claimed before the write, so concurrent requests here write once; the condition makes
      // instances write once a minute between them.
      known.lastUsedAt = now;
      const keyId = known.id;
      await writeTransaction(db, (trx) =>
        trx
          .updateTable("api_keys")
          .set({ last_used_at: now })
          .where("id", "=", keyId)
          .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<=", now - LAST_USED_RESOLUTION_MS)]))
          .execute(),
      );
    }
    return { userId: known.userId, keyId: known.id };
  }
}
