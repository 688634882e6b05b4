import { createHash, createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agreementOf, randomPhone, startTestServer, type TestServer } from "../../../testing/index.ts";
import { aliyunV3Authorization } from "./aliyun.ts";
import { tencentTc3Authorization } from "./tencent.ts";

/**
 * Golden vectors from the official SDKs' signing code (@alicloud/openapi-util 0.3.3 getAuthorization,
 * tencentcloud-sdk-nodejs-common 4.1.220 Sign.sign3), recorded in shared/research/auth.md §3.5.
 */
describe("signatures match the providers' published algorithms (golden vectors)", () => {
  it("Aliyun ACS3-HMAC-SHA256", () => {
    const authorization = aliyunV3Authorization({
      accessKeyId: "exampleAccessKeyId",
      accessKeySecret: "exampleAccessKeySecret",
      method: "POST",
      path: "/",
      query: { PhoneNumbers: "13800138000", SignName: "测试签名", TemplateCode: "SMS_123456789", TemplateParam: '{"code":"123456"}' },
      headers: {
        host: "dysmsapi.aliyuncs.com",
        "x-acs-action": "SendSms",
        "x-acs-version": "2017-05-25",
        "x-acs-date": "2026-01-01T00:00:00Z",
        "x-acs-signature-nonce": "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf",
        "x-acs-content-sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      },
      contentSha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    });
    expect(authorization).toBe(
      "ACS3-HMAC-SHA256 Credential=exampleAccessKeyId,SignedHeaders=host;x-acs-action;x-acs-content-sha256;x-acs-date;x-acs-signature-nonce;x-acs-version,Signature=d8e30a14fc8384d78c35864d7c966a5b0780003e6e31d1cf7665f89703ceeed7",
    );
  });

  it("Tencent TC3-HMAC-SHA256", () => {
    const authorization = tencentTc3Authorization({
      secretId: "AKIDexampleSecretId",
      secretKey: "exampleSecretKey",
      service: "sms",
      host: "sms.tencentcloudapi.com",
      contentType: "application/json; charset=utf-8",
      body: '{"PhoneNumberSet":["+8613800138000"],"SmsSdkAppId":"1400000000","SignName":"测试签名","TemplateId":"1234567","TemplateParamSet":["123456","5"]}',
      timestamp: 1767225600,
    });
    expect(authorization).toBe(
      "TC3-HMAC-SHA256 Credential=AKIDexampleSecretId/2026-01-01/sms/tc3_request, SignedHeaders=content-type;host, Signature=38effcb6817d94eac4139026213387ccb1974fe313779255fd0735e02d00d3da",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Fake providers on loopback. Each verifies the signature with its own implementation of the
// provider's published algorithm (not the adapter's code), then answers as the provider would.
// ---------------------------------------------------------------------------------------------

type Mode = "ok" | "throttled" | "denied" | "http500" | "hang";

interface FakeProvider {
  url: string;
  mode: Mode;
  /** Codes received, in order, with whether their signature verified. */
  received: Array<{ phone: string; code: string; signatureOk: boolean }>;
  close(): Promise<void>;
}

const hex = (data: string) => createHash("sha256").update(data, "utf8").digest("hex");
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());

function aliyunExpected(req: IncomingMessage, secret: string): string {
  const url = new URL(req.url!, "http://fake");
  const params = [...url.searchParams.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const query = params.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join("&");
  const names = Object.keys(req.headers)
    .filter((h) => h === "host" || h === "content-type" || h.startsWith("x-acs-"))
    .sort();
  const canonicalHeaders = names.map((h) => `${h}:${String(req.headers[h]).trim()}\n`).join("");
  const request = `POST\n/\n${query}\n${canonicalHeaders}\n${names.join(";")}\n${req.headers["x-acs-content-sha256"]}`;
  const signature = createHmac("sha256", secret).update(`ACS3-HMAC-SHA256\n${hex(request)}`).digest("hex");
  return `ACS3-HMAC-SHA256 Credential=AKID-test,SignedHeaders=${names.join(";")},Signature=${signature}`;
}

function tencentExpected(req: IncomingMessage, body: string, secretKey: string): string {
  const timestamp = Number(req.headers["x-tc-timestamp"]);
  const date = new Date(timestamp * 1000).toISOString().slice(0, 10);
  const request = `POST\n/\n\ncontent-type:${req.headers["content-type"]}\nhost:${req.headers.host}\n\ncontent-type;host\n${hex(body)}`;
  const toSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/sms/tc3_request\n${hex(request)}`;
  const k = (key: string | Buffer, msg: string) => createHmac("sha256", key).update(msg).digest();
  const signing = k(k(k(`TC3${secretKey}`, date), "sms"), "tc3_request");
  return `TC3-HMAC-SHA256 Credential=tencent-id/${date}/sms/tc3_request, SignedHeaders=content-type;host, Signature=${createHmac("sha256", signing).update(toSign).digest("hex")}`;
}

async function startFake(kind: "aliyun" | "tencent", secret: string): Promise<FakeProvider> {
  const fake: FakeProvider = { url: "", mode: "ok", received: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (fake.mode === "hang") return; // never answers: the adapter's timeout must fire
      const body = Buffer.concat(chunks).toString("utf8");
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      if (fake.mode === "http500") return reply(500, { message: "internal" });
      if (kind === "aliyun") {
        const url = new URL(req.url!, "http://fake");
        const signatureOk = req.headers.authorization === aliyunExpected(req, secret) && req.headers["x-acs-action"] === "SendSms";
        fake.received.push({ phone: url.searchParams.get("PhoneNumbers")!, code: JSON.parse(url.searchParams.get("TemplateParam")!).code, signatureOk });
        if (!signatureOk) return reply(400, { Code: "SignatureDoesNotMatch", Message: "signature mismatch", RequestId: "r1" });
        if (fake.mode === "throttled") return reply(200, { Code: "isv.BUSINESS_LIMIT_CONTROL", Message: "触发分钟级流控", RequestId: "r2" });
        if (fake.mode === "denied") return reply(200, { Code: "isv.AMOUNT_NOT_ENOUGH", Message: "账户余额不足", RequestId: "r3" });
        return reply(200, { Code: "OK", Message: "OK", BizId: "biz", RequestId: "r4" });
      }
      const parsed = JSON.parse(body) as { PhoneNumberSet: string[]; TemplateParamSet: string[] };
      const signatureOk = req.headers.authorization === tencentExpected(req, body, secret) && req.headers["x-tc-action"] === "SendSms";
      fake.received.push({ phone: parsed.PhoneNumberSet[0]!, code: parsed.TemplateParamSet[0]!, signatureOk });
      if (!signatureOk) return reply(200, { Response: { Error: { Code: "AuthFailure.SignatureFailure", Message: "bad signature" }, RequestId: "t1" } });
      const status = fake.mode === "throttled" ? "LimitExceeded.PhoneNumberThirtySecondLimit" : fake.mode === "denied" ? "FailedOperation.InsufficientBalanceInSmsPackage" : "Ok";
      return reply(200, { Response: { SendStatusSet: [{ SerialNo: "s", PhoneNumber: parsed.PhoneNumberSet[0], Fee: 1, Code: status, Message: status }], RequestId: "t2" } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

const providers = [
  {
    kind: "aliyun" as const,
    secret: "aliyun-test-secret",
    env: (url: string, secret: string) => ({
      SMS_PROVIDER: "aliyun",
      ALIYUN_ACCESS_KEY_ID: "AKID-test",
      ALIYUN_ACCESS_KEY_SECRET: secret,
      ALIYUN_SMS_SIGN_NAME: "测试签名",
      ALIYUN_SMS_TEMPLATE_CODE: "SMS_123456789",
      ALIYUN_SMS_ENDPOINT: url,
    }),
    wirePhone: (e164: string) => e164.slice(3),
  },
  {
    kind: "tencent" as const,
    secret: "tencent-test-key",
    env: (url: string, secret: string) => ({
      SMS_PROVIDER: "tencent",
      TENCENT_SECRET_ID: "tencent-id",
      TENCENT_SECRET_KEY: secret,
      TENCENT_SMS_SDK_APP_ID: "1400000000",
      TENCENT_SMS_SIGN_NAME: "测试签名",
      TENCENT_SMS_TEMPLATE_ID: "1234567",
      TENCENT_SMS_ENDPOINT: url,
    }),
    wirePhone: (e164: string) => e164,
  },
];

describe.each(providers)("$kind adapter against a fake provider", ({ kind, secret, env, wirePhone }) => {
  let fake: FakeProvider;
  let server: TestServer;
  beforeAll(async () => {
    fake = await startFake(kind, secret);
    server = await startTestServer({ env: { ...env(fake.url, secret), SMS_PROVIDER_TIMEOUT_MS: "300" } });
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });

  const send = (phone: string) => server.json("/auth/sms/code", { method: "POST", body: { phone, ...agreementOf(server) } });
  /** Challenges that could be verified: a refused send leaves its challenge marked send_failed_at, never usable. */
  const challenges = async () =>
    Number((await server.deps.db.selectFrom("sms_challenges").select((eb) => eb.fn.countAll<number>().as("n")).where("send_failed_at", "is", null).executeTakeFirstOrThrow()).n);

  it("sends a correctly signed request, and the code it carried signs the user in", async () => {
    fake.mode = "ok";
    const phone = randomPhone();
    const sent = await send(phone);
    expect(sent.status).toBe(200);
    const message = fake.received.at(-1)!;
    expect(message).toMatchObject({ phone: wirePhone(`+86${phone}`), signatureOk: true });
    expect(message.code).toMatch(/^\d{6}$/);
    const login = await server.json("/auth/login", { method: "POST", body: { phone, challenge_id: sent.body.data.challenge_id, code: message.code, ...agreementOf(server) } });
    expect(login.status).toBe(200);
    expect(login.body.data.created).toBe(true);
  });

  it("provider throttling is 429 SMS_PROVIDER_THROTTLED with Retry-After; nothing usable stored", async () => {
    fake.mode = "throttled";
    const before = await challenges();
    const sent = await send(randomPhone());
    expect(sent.status).toBe(429);
    expect(sent.body.code).toBe("SMS_PROVIDER_THROTTLED");
    expect(Number(sent.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await challenges()).toBe(before);
  });

  it.each(["denied", "http500", "hang"] as const)("provider failure (%s) is 503, never 500; the phone may retry at once", async (mode) => {
    fake.mode = mode;
    const phone = randomPhone();
    const before = await challenges();
    const sent = await send(phone);
    expect(sent.status).toBe(503);
    expect(sent.body.code).toBe("SMS_PROVIDER_UNAVAILABLE");
    expect(await challenges()).toBe(before);
    fake.mode = "ok";
    expect((await send(phone)).status).toBe(200);
  });

  it("a wrong secret is caught by the fake's signature check (the check can fail)", async () => {
    const wrongServer = await startTestServer({ env: env(fake.url, `${secret}-wrong`) });
    try {
      fake.mode = "ok";
      const sent = await wrongServer.json("/auth/sms/code", { method: "POST", body: { phone: randomPhone(), ...agreementOf(wrongServer) } });
      expect(sent.status).toBe(503);
      expect(fake.received.at(-1)!.signatureOk).toBe(false);
    } finally {
      await wrongServer.close();
    }
  });

  it("with credentials missing the provider counts as not configured (503)", async () => {
    const partial = await startTestServer({ env: { ...env(fake.url, secret), [kind === "aliyun" ? "ALIYUN_SMS_SIGN_NAME" : "TENCENT_SMS_SIGN_NAME"]: "" } });
    try {
      const sent = await partial.json("/auth/sms/code", { method: "POST", body: { phone: randomPhone(), ...agreementOf(partial) } });
      expect(sent.status).toBe(503);
      expect(sent.body.code).toBe("SMS_NOT_CONFIGURED");
    } finally {
      await partial.close();
    }
  });
});
