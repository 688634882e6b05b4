import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Signing secrets at rest. Unlike passwords or API keys they cannot be stored as hashes: the worker
 * needs the secret itself to sign. So each one is sealed with AES-256-GCM under a key derived (HKDF)
 * from the server's SESSION_SECRET, with the subscription id as associated data so a sealed value
 * cannot be moved to another row. A database dump alone reveals no secret. docs/webhooks.md
 * "Secrets at rest" says what changing SESSION_SECRET means.
 */
export interface SecretBox {
  seal(secret: string, subscriptionId: string): string;
  open(sealed: string, subscriptionId: string): string;
}

const VERSION = "v1";

export function createSecretBox(serverSecret: string): SecretBox {
  const key = Buffer.from(hkdfSync("sha256", Buffer.from(serverSecret, "utf8"), Buffer.from("ir21"), Buffer.from("webhook-signing-secrets/v1"), 32));
  return {
    seal(secret, subscriptionId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(subscriptionId, "utf8"));
      const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")}`;
    },
    open(sealed, subscriptionId) {
      const [version, data] = sealed.split(".");
      if (version !== VERSION || !data) throw new Error("Unknown sealed secret format");
      const raw = Buffer.from(data, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(subscriptionId, "utf8"));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
    },
  };
}
