import { describe, expect, it } from "vitest";
import { createSecretBox } from "./secret-box.ts";
import { generateSecret } from "./signing.ts";

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
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith("A") ? "B" : "A"}${sealed.slice(-1)}`;
    expect(() => box.open(tampered, "whk_a")).toThrow();
    expect(() => createSecretBox("another-server-secret-0123456789abcdef").open(sealed, "whk_a")).toThrow();
    expect(() => box.open("v0.abc", "whk_a")).toThrow();
  });
});
