import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Signing secrets at rest. Unlike passwords or API keys they cannot be stored as hashes: the worker
 * needs the secret itself to sign. So each one is sealed with AES-256-GCM under a key derived (HKDF)
 * from the webhook secrets key (WEBHOOK_SECRETS_KEY; SESSION_SECRET when unset), with the subscription
 * id as associated data so a sealed value cannot be moved to another row. A database dump alone
 * reveals no secret. docs/webhooks.md "Secrets at rest" has the keys, their rotation and `rekey`.
 */
export interface SecretBox {
  /** Seals under the current key. */
  seal(secret: string, subscriptionId: string): string;
  /** Opens with the current key, else each older key in turn; throws when none opens it. */
  open(sealed: string, subscriptionId: string): string;
  /** Like {@link open}, and says whether the current key opened it (else `rekey` should re-seal it). */
  openAny(sealed: string, subscriptionId: string): { secret: string; current: boolean };
}

/** The key material: the current key seals; older keys (in order) only open what they sealed. */
export interface SecretBoxKeys {
  current: string;
  previous?: readonly string[];
}

const VERSION = "v1";

/**
 * The AES key for a key string. The derivation is the one SESSION_SECRET has always gone through, so
 * WEBHOOK_SECRETS_KEY set to the old SESSION_SECRET reads the existing secrets unchanged.
 */
function deriveKey(material: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(material, "utf8"), Buffer.from("ir21"), Buffer.from("webhook-signing-secrets/v1"), 32));
}

function openWith(key: Buffer, raw: Buffer, subscriptionId: string): string {
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(subscriptionId, "utf8"));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
}

export function createSecretBox(keys: string | SecretBoxKeys): SecretBox {
  const { current, previous = [] } = typeof keys === "string" ? { current: keys } : keys;
  const currentKey = deriveKey(current);
  // Duplicates (e.g. the current key listed as previous too) would only cost a second try.
  const olderKeys = [...new Set(previous)].filter((k) => k !== current).map(deriveKey);
  const openAny = (sealed: string, subscriptionId: string) => {
    const [version, data] = sealed.split(".");
    if (version !== VERSION || !data) throw new Error("Unknown sealed secret format");
    const raw = Buffer.from(data, "base64url");
    if (raw.length < 28) throw new Error("Sealed secret too short");
    // GCM authenticates: a wrong key fails its tag check, it never yields a wrong secret.
    for (const [i, key] of [currentKey, ...olderKeys].entries()) {
      try {
        return { secret: openWith(key, raw, subscriptionId), current: i === 0 };
      } catch {
        // try the next key
      }
    }
    throw new Error("No webhook secrets key opens this sealed secret (WEBHOOK_SECRETS_KEY / WEBHOOK_SECRETS_PREVIOUS_KEYS)");
  };
  return {
    seal(secret, subscriptionId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", currentKey, iv);
      cipher.setAAD(Buffer.from(subscriptionId, "utf8"));
      const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")}`;
    },
    open: (sealed, subscriptionId) => openAny(sealed, subscriptionId).secret,
    openAny,
  };
}
