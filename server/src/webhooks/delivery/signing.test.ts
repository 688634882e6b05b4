import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { deliveryHeaders, generateSecret, SECRET_PATTERN, sign, signStandard } from "./signing.ts";

interface Vector {
  name: string;
  secrets: string[];
  now: number;
  headers: Record<string, string>;
  body: string;
  expected: string;
}
const file = JSON.parse(readFileSync(fileURLToPath(new URL("../../../../docs/webhook-signature-vectors.json", import.meta.url)), "utf8")) as {
  tolerance_seconds: number;
  failure_codes: string[];
  vectors: Vector[];
  standard_webhooks: { vectors: Vector[] };
};

/**
 * A receiver written from docs/webhooks.md "Verifying a delivery" alone, on Web Crypto rather than the
 * server's node:crypto HMAC, so the file is checked by an implementation that shares no code with the signer.
 */
async function referenceVerify(v: Vector): Promise<string> {
  const h = v.headers;
  const eventId = h["x-ir21-event-id"];
  const timestamp = h["x-ir21-timestamp"];
  const signature = h["x-ir21-signature"];
  const previous = h["x-ir21-signature-previous"];
  if (eventId === undefined || timestamp === undefined || signature === undefined) return "MISSING_HEADER";
  const signatures = previous === undefined ? [signature] : [signature, previous];
  if (!signatures.every((s) => /^v1=[0-9a-f]{64}$/.test(s))) return "MALFORMED_SIGNATURE";
  if (!/^[0-9]{1,15}$/.test(timestamp)) return "INVALID_TIMESTAMP";
  if (Math.abs(v.now - Number(timestamp)) > file.tolerance_seconds) return "TIMESTAMP_OUT_OF_TOLERANCE";
  const message = new TextEncoder().encode(`${timestamp}.${v.body}`);
  let matched = false;
  for (const secret of v.secrets) {
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    for (const s of signatures) {
      const bytes = Uint8Array.from(s.slice(3).match(/../g)!.map((pair) => parseInt(pair, 16)));
      // subtle.verify compares in constant time.
      if (await crypto.subtle.verify("HMAC", key, bytes, message)) matched = true;
    }
  }
  if (!matched) return "SIGNATURE_MISMATCH";
  let body: unknown;
  try {
    body = JSON.parse(v.body);
  } catch {
    return "MALFORMED_BODY";
  }
  if (typeof body !== "object" || body === null || typeof (body as { id?: unknown }).id !== "string") return "MALFORMED_BODY";
  if ((body as { id: string }).id !== eventId) return "EVENT_ID_MISMATCH";
  return "valid";
}

const opensslHmac = (secret: string, message: string) =>
  execFileSync("openssl", ["dgst", "-sha256", "-mac", "HMAC", "-macopt", `key:${secret}`, "-hex"], { input: Buffer.from(message, "utf8") })
    .toString()
    .trim()
    .split("= ")[1];
/** The Standard Webhooks form of the same HMAC: `v1,` and its base64. */
const opensslStandard = (secret: string, message: string) => `v1,${Buffer.from(opensslHmac(secret, message)!, "hex").toString("base64")}`;

describe("docs/webhook-signature-vectors.json", () => {
  it("covers every failure code and the cases the SDK must handle", () => {
    const outcomes = new Set(file.vectors.map((v) => v.expected));
    expect([...outcomes].sort()).toEqual([...file.failure_codes, "valid"].sort());
    const names = file.vectors.map((v) => v.name);
    for (const required of ["valid", "previous_secret_only", "tampered_body", "tampered_timestamp", "wrong_secret", "malformed_no_scheme", "non_hex", "too_short", "too_long", "non_digit_timestamp", "timestamp_too_old", "event_id_mismatch", "missing_signature"]) {
      expect(names).toContain(required);
    }
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(file.vectors.map((v) => [v.name, v] as const))("%s: an independent verifier reaches the expected outcome", async (_name, v) => {
    expect(await referenceVerify(v)).toBe(v.expected);
  });

  it("the server's signer reproduces every well-formed signature in the file that a listed secret made", () => {
    let reproduced = 0;
    for (const v of file.vectors) {
      const timestamp = v.headers["x-ir21-timestamp"];
      if (timestamp === undefined || !/^\d+$/.test(timestamp)) continue;
      for (const header of ["x-ir21-signature", "x-ir21-signature-previous"]) {
        const value = v.headers[header];
        if (value === undefined) continue;
        const mine = v.secrets.map((s) => sign(s, Number(timestamp), v.body));
        if (mine.includes(value)) reproduced++;
      }
    }
    // Every valid vector and every vector whose only fault is elsewhere (tolerance, body, id) is reproducible.
    expect(reproduced).toBeGreaterThanOrEqual(file.vectors.filter((v) => v.expected === "valid").length + 4);
  });
});

describe("sign", () => {
  it("matches openssl's HMAC-SHA256 keyed by the UTF-8 secret, in lower-case hex", () => {
    const secret = generateSecret();
    const body = '{"id":"evt_1","name":"西班牙电信 📶"}';
    const ts = 1767225600;
    expect(sign(secret, ts, body)).toBe(`v1=${opensslHmac(secret, `${ts}.${body}`)}`);
    expect(sign(secret, ts, body)).toMatch(/^v1=[0-9a-f]{64}$/);
  });

  it("matches the research notes' published vector", () => {
    expect(sign("whsec_test_secret_ir21", 1700000000, '{"event":"operator.updated","id":"evt_1"}')).toBe(
      "v1=40fc382efed98f3458bdb29117d39091721733e5f1259e6af2c92e0fb775e778",
    );
  });

  it("deliveryHeaders adds the previous signature only when a previous secret is given", () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const base = { eventId: "evt_x", timestampSeconds: 1767225600, rawBody: "{}", secret: current };
    const single = deliveryHeaders({ ...base, previousSecret: null });
    expect(Object.keys(single)).toEqual(["X-IR21-Event-Id", "X-IR21-Timestamp", "X-IR21-Signature", "webhook-id", "webhook-timestamp", "webhook-signature"]);
    expect(single["X-IR21-Signature"]).toBe(`v1=${opensslHmac(current, "1767225600.{}")}`);
    const both = deliveryHeaders({ ...base, previousSecret: previous });
    expect(both["X-IR21-Signature-Previous"]).toBe(`v1=${opensslHmac(previous, "1767225600.{}")}`);
    expect(both["X-IR21-Signature"]).toBe(`v1=${opensslHmac(current, "1767225600.{}")}`);
  });

  it("deliveryHeaders also carries the Standard Webhooks headers: the same id and timestamp, one signature per valid secret, current first", () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const body = '{"id":"evt_x","name":"西班牙电信 📶"}';
    const base = { eventId: "evt_x", timestampSeconds: 1767225600, rawBody: body, secret: current };
    const single = deliveryHeaders({ ...base, previousSecret: null });
    expect(single["webhook-id"]).toBe("evt_x");
    expect(single["webhook-timestamp"]).toBe("1767225600");
    expect(single["webhook-signature"]).toBe(opensslStandard(current, `evt_x.1767225600.${body}`));
    const both = deliveryHeaders({ ...base, previousSecret: previous });
    expect(both["webhook-signature"]).toBe(`${opensslStandard(current, `evt_x.1767225600.${body}`)} ${opensslStandard(previous, `evt_x.1767225600.${body}`)}`);
    // Ours are untouched by the addition: the same values as without it.
    for (const name of ["X-IR21-Event-Id", "X-IR21-Timestamp", "X-IR21-Signature"]) expect(both[name]).toBe(single[name]);
  });

  it("signStandard reproduces every valid Standard Webhooks vector in the file (made by another implementation)", () => {
    const valid = file.standard_webhooks.vectors.filter((v) => v.expected === "valid");
    expect(valid.length).toBeGreaterThanOrEqual(5);
    for (const v of valid) {
      const id = v.headers["webhook-id"]!;
      const ts = Number(v.headers["webhook-timestamp"]);
      const sent = v.headers["webhook-signature"]!.split(" ");
      // Some secret the receiver holds signed one of the v1 entries, byte for byte.
      expect(v.secrets.some((secret) => sent.includes(signStandard(secret, id, ts, v.body))), v.name).toBe(true);
    }
  });
});

describe("generateSecret", () => {
  it("is whsec_ and the base64url of 32 random bytes, different every time", () => {
    const a = generateSecret();
    expect(a).toMatch(SECRET_PATTERN);
    expect(Buffer.from(a.slice(6), "base64url")).toHaveLength(32);
    expect(generateSecret()).not.toBe(a);
  });
});
