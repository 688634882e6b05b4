import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isWebhookVerificationError, WEBHOOK_FAILURE_CODES, WebhookVerificationError, type WebhookFailureCode } from "./errors.ts";
import { verifyWebhook, type VerifyWebhookInput } from "./verify.ts";

interface Vector {
  name: string;
  secrets: string[];
  now: number;
  headers: Record<string, string>;
  body: string;
  expected: "valid" | WebhookFailureCode;
}
const file = JSON.parse(readFileSync(fileURLToPath(new URL("../../../docs/webhook-signature-vectors.json", import.meta.url)), "utf8")) as {
  tolerance_seconds: number;
  failure_codes: string[];
  vectors: Vector[];
};

const SECRET = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
const NOW = 1767225600;
const at = (seconds: number) => new Date(seconds * 1000);

/** Signs like the server does (node:crypto, an implementation the SDK does not share). */
function signed(body: string | Uint8Array, options: { secret?: string; timestamp?: number; eventId?: string; previous?: string } = {}) {
  const timestamp = options.timestamp ?? NOW;
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
  const mac = (secret: string) => `v1=${createHmac("sha256", secret).update(Buffer.concat([Buffer.from(`${timestamp}.`), bytes])).digest("hex")}`;
  const headers: Record<string, string> = {
    "x-ir21-event-id": options.eventId ?? "evt_test",
    "x-ir21-timestamp": String(timestamp),
    "x-ir21-signature": mac(options.secret ?? SECRET),
  };
  if (options.previous) headers["x-ir21-signature-previous"] = mac(options.previous);
  return headers;
}

async function outcome(input: VerifyWebhookInput): Promise<string> {
  try {
    await verifyWebhook(input);
    return "valid";
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
}

describe("verifyWebhook against docs/webhook-signature-vectors.json", () => {
  it("uses exactly the file's failure codes and tolerance", () => {
    expect([...WEBHOOK_FAILURE_CODES]).toEqual(file.failure_codes);
    expect(file.tolerance_seconds).toBe(300);
  });

  it.each(file.vectors.map((v) => [v.name, v] as const))("%s (body as text)", async (_name, v) => {
    expect(await outcome({ rawBody: v.body, headers: v.headers, secrets: v.secrets, now: at(v.now) })).toBe(v.expected);
  });

  it.each(file.vectors.map((v) => [v.name, v] as const))("%s (body as bytes, headers as a Headers object)", async (_name, v) => {
    const rawBody = Buffer.from(v.body, "utf8");
    const headers = new Headers(v.headers);
    // Fetch Headers (like every HTTP parser) trims surrounding whitespace, so " 1767225600" arrives as
    // a well-formed timestamp that is no longer the one that was signed.
    const trimmed = Object.entries(v.headers).some(([name, value]) => headers.get(name) !== value);
    const expected = trimmed ? "SIGNATURE_MISMATCH" : v.expected;
    expect(trimmed).toBe(v.name === "timestamp_with_space");
    expect(await outcome({ rawBody, headers, secrets: v.secrets, now: () => at(v.now) })).toBe(expected);
  });

  it("returns the parsed event of every valid vector, untouched", async () => {
    for (const v of file.vectors.filter((x) => x.expected === "valid")) {
      const event = await verifyWebhook({ rawBody: v.body, headers: v.headers, secrets: v.secrets, now: at(v.now) });
      expect(event).toEqual(JSON.parse(v.body));
      expect(event.id).toBe(v.headers["x-ir21-event-id"]);
    }
  });

  it("reports the first failing check when several fail (the documented order)", async () => {
    const v = file.vectors.find((x) => x.name === "valid")!;
    // Malformed signature and a bad timestamp: the signature check comes first.
    expect(await outcome({ rawBody: v.body, headers: { ...v.headers, "x-ir21-signature": "v1=zz", "x-ir21-timestamp": "x" }, secrets: v.secrets, now: at(v.now) })).toBe(
      "MALFORMED_SIGNATURE",
    );
    // Out of tolerance and the wrong secret: the clock is checked before any HMAC work.
    expect(await outcome({ rawBody: v.body, headers: v.headers, secrets: ["whsec_other"], now: at(v.now + 3600) })).toBe("TIMESTAMP_OUT_OF_TOLERANCE");
    // Tampered body that is no longer JSON: the signature fails before the body is parsed.
    expect(await outcome({ rawBody: "{not json", headers: v.headers, secrets: v.secrets, now: at(v.now) })).toBe("SIGNATURE_MISMATCH");
  });
});

describe("verifyWebhook inputs", () => {
  const body = JSON.stringify({ id: "evt_test", type: "ir21.catalog.updated", data: { reason: "import" } });

  it("verifies the exact bytes: a UTF-8 body as string, Uint8Array, Buffer slice and ArrayBuffer", async () => {
    const text = JSON.stringify({ id: "evt_test", name: "西班牙电信 Telefónica 📶" });
    const headers = signed(text);
    const bytes = new TextEncoder().encode(text);
    const pooled = Buffer.concat([Buffer.from("xxxx"), Buffer.from(text)]).subarray(4);
    for (const rawBody of [text, bytes, pooled, bytes.buffer.slice(0)]) {
      expect((await verifyWebhook({ rawBody, headers, secrets: SECRET, now: at(NOW) })).id).toBe("evt_test");
    }
  });

  it("reads header names case-insensitively from records and joins repeated headers (which then fail strict parsing)", async () => {
    const headers = signed(body);
    const mixed = { "X-IR21-Event-Id": headers["x-ir21-event-id"], "X-Ir21-Timestamp": headers["x-ir21-timestamp"], "X-IR21-SIGNATURE": headers["x-ir21-signature"] };
    expect((await verifyWebhook({ rawBody: body, headers: mixed, secrets: SECRET, now: at(NOW) })).id).toBe("evt_test");
    const repeated = { ...headers, "x-ir21-signature": [headers["x-ir21-signature"]!, headers["x-ir21-signature"]!] };
    expect(await outcome({ rawBody: body, headers: repeated, secrets: SECRET, now: at(NOW) })).toBe("MALFORMED_SIGNATURE");
    const undefinedValue = { ...headers, "x-ir21-timestamp": undefined };
    expect(await outcome({ rawBody: body, headers: undefinedValue, secrets: SECRET, now: at(NOW) })).toBe("MISSING_HEADER");
  });

  it("accepts any listed secret in either header, and nothing else", async () => {
    const old = "whsec_old_secret_still_in_grace";
    const rotated = signed(body, { secret: "whsec_new_secret", previous: old });
    expect(await outcome({ rawBody: body, headers: rotated, secrets: [old], now: at(NOW) })).toBe("valid");
    expect(await outcome({ rawBody: body, headers: rotated, secrets: ["whsec_new_secret"], now: at(NOW) })).toBe("valid");
    expect(await outcome({ rawBody: body, headers: rotated, secrets: ["whsec_unrelated", old], now: at(NOW) })).toBe("valid");
    expect(await outcome({ rawBody: body, headers: rotated, secrets: ["whsec_unrelated"], now: at(NOW) })).toBe("SIGNATURE_MISMATCH");
    // The key is the whole secret: the same secret without its prefix does not verify.
    const bare = signed(body, { secret: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8" });
    expect(await outcome({ rawBody: body, headers: bare, secrets: SECRET, now: at(NOW) })).toBe("SIGNATURE_MISMATCH");
  });

  it("applies toleranceSeconds both ways, inclusive, 0 meaning the same second", async () => {
    const headers = signed(body);
    expect(await outcome({ rawBody: body, headers, secrets: SECRET, now: at(NOW + 30), toleranceSeconds: 30 })).toBe("valid");
    expect(await outcome({ rawBody: body, headers, secrets: SECRET, now: at(NOW - 30), toleranceSeconds: 30 })).toBe("valid");
    expect(await outcome({ rawBody: body, headers, secrets: SECRET, now: at(NOW + 31), toleranceSeconds: 30 })).toBe("TIMESTAMP_OUT_OF_TOLERANCE");
    expect(await outcome({ rawBody: body, headers, secrets: SECRET, now: new Date(NOW * 1000 + 999), toleranceSeconds: 0 })).toBe("valid");
    expect(await outcome({ rawBody: body, headers, secrets: SECRET, now: at(NOW + 1), toleranceSeconds: 0 })).toBe("TIMESTAMP_OUT_OF_TOLERANCE");
    expect(await outcome({ rawBody: body, headers, secrets: SECRET, now: at(NOW + 3600), toleranceSeconds: 7200 })).toBe("valid");
  });

  it("uses the real clock by default", async () => {
    const headers = signed(body, { timestamp: Math.floor(Date.now() / 1000) });
    expect((await verifyWebhook({ rawBody: body, headers, secrets: SECRET })).id).toBe("evt_test");
    expect(await outcome({ rawBody: body, headers: signed(body, { timestamp: NOW }), secrets: SECRET })).toBe("TIMESTAMP_OUT_OF_TOLERANCE");
  });

  it("refuses correctly signed bodies that are not an event object: invalid UTF-8, arrays, null, a numeric id", async () => {
    const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]); // {"id":"\xff"}
    for (const rawBody of [invalidUtf8, "[]", "null", '"evt_test"', '{"id":42}']) {
      expect(await outcome({ rawBody, headers: signed(rawBody), secrets: SECRET, now: at(NOW) })).toBe("MALFORMED_BODY");
    }
  });

  it("names the failed check in the error without echoing secrets or signatures", async () => {
    const headers = signed(body, { secret: "whsec_someone_else" });
    const error = await verifyWebhook({ rawBody: body, headers, secrets: SECRET, now: at(NOW) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ name: "WebhookVerificationError", code: "SIGNATURE_MISMATCH" });
    const message = (error as Error).message;
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(headers["x-ir21-signature"]!.slice(3));
    const missing = await verifyWebhook({ rawBody: body, headers: {}, secrets: SECRET }).catch((e: unknown) => e);
    expect((missing as Error).message).toBe("Missing headers: X-IR21-Event-Id, X-IR21-Timestamp, X-IR21-Signature");
  });

  it("throws TypeError for programming mistakes rather than a verification failure", async () => {
    const headers = signed(body);
    const base = { rawBody: body, headers, secrets: SECRET, now: at(NOW) };
    await expect(verifyWebhook({ ...base, secrets: [] })).rejects.toThrow(TypeError);
    await expect(verifyWebhook({ ...base, secrets: "" })).rejects.toThrow(/whsec_/);
    await expect(verifyWebhook({ ...base, secrets: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8" })).rejects.toThrow(/whole signing secret/);
    await expect(verifyWebhook({ ...base, secrets: [SECRET, undefined as unknown as string] })).rejects.toThrow(TypeError);
    await expect(verifyWebhook({ ...base, rawBody: JSON.parse(body) })).rejects.toThrow(/not a parsed object/);
    await expect(verifyWebhook({ ...base, toleranceSeconds: -1 })).rejects.toThrow(TypeError);
    await expect(verifyWebhook({ ...base, toleranceSeconds: Number.POSITIVE_INFINITY })).rejects.toThrow(TypeError);
    await expect(verifyWebhook({ ...base, now: new Date("nonsense") })).rejects.toThrow(TypeError);
  });
});

describe("isWebhookVerificationError", () => {
  it("recognises the class and a copy from another bundle, and nothing else", () => {
    expect(isWebhookVerificationError(new WebhookVerificationError("MISSING_HEADER", "x"))).toBe(true);
    const foreign = Object.assign(new Error("x"), { name: "WebhookVerificationError", code: "SIGNATURE_MISMATCH" });
    expect(isWebhookVerificationError(foreign)).toBe(true);
    expect(isWebhookVerificationError(Object.assign(new Error("x"), { name: "WebhookVerificationError", code: "NOPE" }))).toBe(false);
    expect(isWebhookVerificationError(new TypeError("x"))).toBe(false);
    expect(isWebhookVerificationError({ name: "WebhookVerificationError", code: "MISSING_HEADER" })).toBe(false);
  });
});
