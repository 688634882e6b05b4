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
  standard_webhooks: { vectors: Vector[] };
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

/** The Standard Webhooks headers of the same delivery (node:crypto): `v1,<base64>` of `id.timestamp.body`, space-separated. */
function standardSigned(body: string, options: { secrets?: string[]; timestamp?: number; eventId?: string } = {}) {
  const timestamp = options.timestamp ?? NOW;
  const id = options.eventId ?? "evt_test";
  const mac = (secret: string) => `v1,${createHmac("sha256", secret).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": (options.secrets ?? [SECRET]).map(mac).join(" ") };
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

describe("verifyWebhook against the file's Standard Webhooks vectors", () => {
  it("covers every failure code, and the rotation and key cases", () => {
    const vectors = file.standard_webhooks.vectors;
    expect([...new Set(vectors.map((v) => v.expected))].sort()).toEqual([...file.failure_codes, "valid"].sort());
    const names = vectors.map((v) => v.name);
    for (const required of ["valid", "valid_during_rotation_both_signatures", "previous_secret_only", "wrong_secret", "tampered_body", "key_is_not_the_decoded_secret"]) expect(names).toContain(required);
    expect(new Set(names).size).toBe(names.length);
    // Only the standard headers: these exercise the standard scheme, not ours.
    for (const v of vectors) expect(Object.keys(v.headers).every((name) => name.startsWith("webhook-")), v.name).toBe(true);
  });

  it.each(file.standard_webhooks.vectors.map((v) => [v.name, v] as const))("%s (body as text)", async (_name, v) => {
    expect(await outcome({ rawBody: v.body, headers: v.headers, secrets: v.secrets, now: at(v.now) })).toBe(v.expected);
  });

  it.each(file.standard_webhooks.vectors.map((v) => [v.name, v] as const))("%s (body as bytes, a Headers object, scheme: \"standard\")", async (_name, v) => {
    const input = { rawBody: Buffer.from(v.body, "utf8"), headers: new Headers(v.headers), secrets: v.secrets, now: at(v.now) };
    expect(await outcome({ ...input, scheme: "standard" })).toBe(v.expected);
    // Forced to ours, the same delivery lacks our headers.
    expect(await outcome({ ...input, scheme: "ir21" })).toBe("MISSING_HEADER");
  });
});

describe("verifyWebhook: which scheme", () => {
  const body = JSON.stringify({ id: "evt_test", type: "ir21.catalog.updated", data: { reason: "import" } });
  const both = (overrides: Record<string, string> = {}): Record<string, string> => ({ ...signed(body), ...standardSigned(body), ...overrides });

  it("auto checks ours when they are complete (every ir21 delivery has both), the standard ones otherwise", async () => {
    expect(await outcome({ rawBody: body, headers: both(), secrets: SECRET, now: at(NOW) })).toBe("valid");
    // Ours decide when present: a broken standard header does not matter to auto, and a broken one of ours is not rescued.
    expect(await outcome({ rawBody: body, headers: both({ "webhook-signature": "nonsense" }), secrets: SECRET, now: at(NOW) })).toBe("valid");
    expect(await outcome({ rawBody: body, headers: both({ "x-ir21-signature": "v1=zz" }), secrets: SECRET, now: at(NOW) })).toBe("MALFORMED_SIGNATURE");
    // Ours incomplete (a relay kept only some headers): the complete standard set is checked.
    const { "x-ir21-signature": _dropped, ...partial } = both();
    expect(await outcome({ rawBody: body, headers: partial, secrets: SECRET, now: at(NOW) })).toBe("valid");
    expect(await outcome({ rawBody: `${body} `, headers: partial, secrets: SECRET, now: at(NOW) })).toBe("SIGNATURE_MISMATCH");
  });

  it("scheme pins one: the other scheme's headers are ignored", async () => {
    expect(await outcome({ rawBody: body, headers: both({ "x-ir21-signature": "v1=zz" }), secrets: SECRET, now: at(NOW), scheme: "standard" })).toBe("valid");
    expect(await outcome({ rawBody: body, headers: both({ "webhook-signature": "nonsense" }), secrets: SECRET, now: at(NOW), scheme: "standard" })).toBe("MALFORMED_SIGNATURE");
    expect(await outcome({ rawBody: body, headers: both({ "webhook-signature": "nonsense" }), secrets: SECRET, now: at(NOW), scheme: "ir21" })).toBe("valid");
    const error = await verifyWebhook({ rawBody: body, headers: standardSigned(body), secrets: SECRET, now: at(NOW), scheme: "ir21" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MISSING_HEADER", message: "Missing headers: X-IR21-Event-Id, X-IR21-Timestamp, X-IR21-Signature" });
    await expect(verifyWebhook({ rawBody: body, headers: both(), secrets: SECRET, now: at(NOW), scheme: "svix" as "standard" })).rejects.toThrow(TypeError);
  });

  it("standard: any listed secret against any v1 entry; other versions and empty entries are skipped", async () => {
    const old = "whsec_old_secret_still_in_grace";
    const rotated = standardSigned(body, { secrets: ["whsec_new_secret", old] });
    expect(rotated["webhook-signature"].split(" ")).toHaveLength(2);
    for (const secrets of [[old], ["whsec_new_secret"], ["whsec_unrelated", old]]) expect(await outcome({ rawBody: body, headers: rotated, secrets, now: at(NOW) })).toBe("valid");
    expect(await outcome({ rawBody: body, headers: rotated, secrets: ["whsec_unrelated"], now: at(NOW) })).toBe("SIGNATURE_MISMATCH");
    const spaced = { ...rotated, "webhook-signature": ` v1a,c2lnbmF0dXJl  ${rotated["webhook-signature"].replace(" ", "  ")} ` };
    expect(await outcome({ rawBody: body, headers: spaced, secrets: [old], now: at(NOW) })).toBe("valid");
    // The id is signed: another id in the header fails the signature, before the body is compared with it.
    expect(await outcome({ rawBody: body, headers: { ...rotated, "webhook-id": "evt_other" }, secrets: [old], now: at(NOW) })).toBe("SIGNATURE_MISMATCH");
  });

  it("standard: only the canonical base64 matches, and every v1 entry must be 32 bytes of base64", async () => {
    const headers = standardSigned(body);
    const value = headers["webhook-signature"].slice(3);
    // The 43rd character carries 2 unused bits: flipping them decodes to the same bytes, but is not what was sent.
    const last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".indexOf(value[42]!);
    const twin = `${value.slice(0, 42)}${"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[last ^ 1]}=`;
    expect(Buffer.from(twin, "base64")).toEqual(Buffer.from(value, "base64"));
    expect(await outcome({ rawBody: body, headers: { ...headers, "webhook-signature": `v1,${twin}` }, secrets: SECRET, now: at(NOW) })).toBe("SIGNATURE_MISMATCH");
    for (const bad of [`v1,${value.slice(0, -1)}`, `v1,${value}=`, `v1,${value.replace(/=$/, "")}`, "v1,", "v1", `${headers["webhook-signature"]} garbage`, `v1=${"0".repeat(64)}`]) {
      expect(await outcome({ rawBody: body, headers: { ...headers, "webhook-signature": bad }, secrets: SECRET, now: at(NOW) }), bad).toBe("MALFORMED_SIGNATURE");
    }
    const repeated = { ...headers, "webhook-signature": [headers["webhook-signature"], headers["webhook-signature"]] };
    expect(await outcome({ rawBody: body, headers: repeated, secrets: SECRET, now: at(NOW) })).toBe("MALFORMED_SIGNATURE");
  });

  it("standard: the header names in messages are the standard ones", async () => {
    const tooOld = await verifyWebhook({ rawBody: body, headers: standardSigned(body), secrets: SECRET, now: at(NOW + 301) }).catch((e: unknown) => e);
    expect((tooOld as Error).message).toMatch(/^webhook-timestamp is 301 s in the past/);
    const otherId = await verifyWebhook({ rawBody: body, headers: standardSigned(body, { eventId: "evt_other" }), secrets: SECRET, now: at(NOW) }).catch((e: unknown) => e);
    expect(otherId).toMatchObject({ code: "EVENT_ID_MISMATCH", message: "webhook-id does not equal the body's id" });
    const { "webhook-signature": _s, ...unsigned } = standardSigned(body);
    expect(await verifyWebhook({ rawBody: body, headers: unsigned, secrets: SECRET }).catch((e: Error) => e.message)).toBe("Missing header: webhook-signature");
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
    expect((missing as Error).message).toBe("Missing headers: X-IR21-Event-Id, X-IR21-Timestamp, X-IR21-Signature (or webhook-id, webhook-timestamp, webhook-signature)");
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
