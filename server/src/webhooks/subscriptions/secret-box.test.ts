import { describe, expect, it } from "vitest";
import { createSecretBox } from "./secret-box.ts";
import { generateSecret } from "../delivery/signing.ts";

describe("secret box", () => {
  const box = createSecretBox("server-secret-0123456789abcdef0123456789");
  const secret = generateSecret();

  it("round-trips a secret and never stores it in clear", () => {
    const sealed = box.seal(secret, "whk_a");
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, "whk_a")).toBe(secret);
    expect(box.seal(secret, "whk_a")).not.toBe(sealed); // fresh IV every time
  });

  it("refuses a sealed value moved to another subscription, tampered, or sealed under another server key", () => {
    const sealed = box.seal(secret, "whk_a");
    expect(() => box.open(sealed, "whk_b")).toThrow();
    // Flip one bit of the tag's bytes, not a base64url character: a character's change can land in
    // the padding bits the decoder drops, or put back the same letter (1 in 64 runs before).
    const raw = Buffer.from(sealed.slice("v1.".length), "base64url");
    raw.writeUInt8(raw.readUInt8(raw.length - 1) ^ 1, raw.length - 1);
    const tampered = `v1.${raw.toString("base64url")}`;
    expect(tampered).not.toBe(sealed);
    expect(() => box.open(tampered, "whk_a")).toThrow();
    expect(() => createSecretBox("another-server-secret-0123456789abcdef").open(sealed, "whk_a")).toThrow();
    expect(() => box.open("v0.abc", "whk_a")).toThrow();
  });
});

describe("secret box keys", () => {
  const secret = generateSecret();
  const sessionSecret = "server-secret-0123456789abcdef0123456789";
  const k1 = "webhook-key-one-0123456789abcdef012345";
  const k2 = "webhook-key-two-0123456789abcdef012345";

  it("a key string derives the same AES key as SESSION_SECRET always did: set WEBHOOK_SECRETS_KEY to the old SESSION_SECRET and nothing changes", () => {
    const sealed = createSecretBox(sessionSecret).seal(secret, "whk_a");
    expect(createSecretBox({ current: sessionSecret }).openAny(sealed, "whk_a")).toEqual({ secret, current: true });
  });

  it("the current key seals; previous keys only open, and say they are not current", () => {
    const old = createSecretBox(k1).seal(secret, "whk_a");
    const box = createSecretBox({ current: k2, previous: [sessionSecret, k1] });
    expect(box.openAny(old, "whk_a")).toEqual({ secret, current: false });
    const fresh = box.seal(secret, "whk_a");
    expect(createSecretBox(k2).open(fresh, "whk_a")).toBe(secret);
    expect(() => createSecretBox(k1).open(fresh, "whk_a")).toThrow();
    expect(() => createSecretBox({ current: sessionSecret }).open(old, "whk_a")).toThrow(/No webhook secrets key/);
  });
});
