/**
 * The concurrency cases of issue 15 tried from outside against a running server (`pnpm start`), as an
 * attacker or a load tester would: prints the figures (answers per status, caps, SMS sent vs usable,
 * keep-alive behaviour) as JSON. Not part of the test run; it asserts nothing.
 *
 * Start the server with the dev SMS provider, room for many codes from one address and loopback
 * webhook URLs, e.g. on MariaDB + Redis:
 *
 *   mariadb -h127.0.0.1 -uroot -e 'create database ir21_probe'
 *   export DATABASE_URL=mysql://root@127.0.0.1:3306/ir21_probe REDIS_URL=redis://127.0.0.1:6379 \
 *     PORT=0 SMS_IP_HOURLY_LIMIT=100000 SMS_IP_DAILY_LIMIT=100000 LOGIN_IP_LIMIT=100000 \
 *     WEBHOOK_ALLOW_HOSTS=127.0.0.1 IR21_SMS_OUTBOX=/tmp/ir21-probe-outbox.jsonl
 *   pnpm ir21-server migrate && pnpm ir21-server import demo && pnpm start
 *
 * then, with the URL it logs:
 *
 *   node --import tsx tests/concurrency/outside.ts http://127.0.0.1:<port> /tmp/ir21-probe-outbox.jsonl [rounds]
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { randomInt } from "node:crypto";

const [base, outboxPath, roundsArg] = process.argv.slice(2);
if (!base || !outboxPath) {
  console.error("usage: outside.ts <server url> <sms outbox path> [rounds]");
  process.exit(2);
}
const rounds = Number(roundsArg ?? 3);
const agreement = { agreed: true, terms_version: "2026-09-08", privacy_version: "2026-09-08" };
const phone = () => `139${String(randomInt(0, 100_000_000)).padStart(8, "0")}`;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(new URL(path, base), {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((t, s) => ((t[s] = (t[s] ?? 0) + 1), t), {});
const outbox = (): Array<{ phone: string; code: string }> =>
  readFileSync(outboxPath!, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

async function signIn(): Promise<string> {
  const p = phone();
  const sent = await call("POST", "/auth/sms/code", { phone: p, ...agreement });
  const code = outbox().filter((m) => m.phone === `+86${p}`).at(-1)!.code;
  const login = await fetch(new URL("/auth/login", base), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ phone: p, challenge_id: sent.body.data.challenge_id, code, ...agreement }),
  });
  return login.headers.getSetCookie()[0]!.split(";")[0]!;
}

/** N different phones ask for a code at once; then every code the outbox got is tried. */
async function codesForDifferentPhones(n: number) {
  const phones = Array.from({ length: n }, phone);
  const sent = await Promise.all(phones.map((p) => call("POST", "/auth/sms/code", { phone: p, ...agreement })));
  const messages = outbox().filter((m) => phones.some((p) => m.phone === `+86${p}`));
  const logins = await Promise.all(
    messages.map((m) => {
      const i = phones.findIndex((p) => m.phone === `+86${p}`);
      const challenge = sent[i]!.body?.data?.challenge_id ?? "chl_none000000";
      return call("POST", "/auth/login", { phone: phones[i], challenge_id: challenge, code: m.code, ...agreement });
    }),
  );
  return { requests: n, answers: tally(sent.map((a) => a.status)), sms_sent: messages.length, codes_that_sign_in: logins.filter((l) => l.status === 200).length };
}

async function capOf(path: string, n: number, body: () => unknown, count: (cookie: string) => Promise<number>) {
  const cookie = await signIn();
  const answers = await Promise.all(Array.from({ length: n }, () => call("POST", path, body(), { cookie })));
  return { requests: n, answers: tally(answers.map((a) => a.status)), stored: await count(cookie) };
}

/** An oversize body, then a second request on the same keep-alive connection: ms until its answer, or "hang". */
function oversizeThenNext(bytes: number): Promise<{ first: string; second_answered_ms: number | "no answer in 3 s" }> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(base!).port), new URL(base!).hostname);
    let data = "";
    let sentSecondAt = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ first: data.split("\r\n")[0] ?? "", second_answered_ms: "no answer in 3 s" });
    }, 3_000);
    socket.on("data", (chunk) => {
      data += chunk.toString("latin1");
      const answers = data.match(/HTTP\/1\.1 \d+/g) ?? [];
      if (answers.length === 1 && sentSecondAt === 0) {
        sentSecondAt = Date.now();
        socket.write("GET /healthz HTTP/1.1\r\nHost: probe\r\n\r\n");
      }
      if (answers.length === 2) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ first: answers[0]!, second_answered_ms: Date.now() - sentSecondAt });
      }
    });
    socket.on("error", () => undefined);
    socket.write(`POST /contact HTTP/1.1\r\nHost: probe\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`);
    socket.write(Buffer.alloc(bytes, "a"));
  });
}

function rawAnswer(request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(base!).port), new URL(base!).hostname);
    let data = "";
    socket.on("data", (c) => (data += c.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(data));
    setTimeout(() => socket.destroy(), 2_000);
    socket.write(request);
  });
}

const figures: Record<string, unknown> = {};
for (let round = 1; round <= rounds; round++) {
  const r: Record<string, unknown> = {};
  r["sms_code_20_phones"] = await codesForDifferentPhones(20);
  r["sms_code_50_phones"] = await codesForDifferentPhones(50);
  const one = phone();
  const same = await Promise.all(Array.from({ length: 20 }, () => call("POST", "/auth/sms/code", { phone: one, ...agreement })));
  r["sms_code_one_phone_x20"] = { answers: tally(same.map((a) => a.status)), sms_sent: outbox().filter((m) => m.phone === `+86${one}`).length };
  r["api_keys_x30_cap20"] = await capOf("/console/api-keys", 30, () => ({ name: "probe" }), async (cookie) => (await call("GET", "/console/api-keys", undefined, { cookie })).body.data.items.filter((k: { revoked_at: unknown }) => k.revoked_at === null).length);
  r["webhooks_x60_cap20"] = await capOf("/console/webhooks", 60, () => ({ url: "http://127.0.0.1:9/hook", events: ["ir21.operator.updated"] }), async (cookie) => (await call("GET", "/console/webhooks", undefined, { cookie })).body.data.items.length);
  figures[`round_${round}`] = r;
}
figures["oversize_200KiB_then_next_request"] = await oversizeThenNext(200 * 1024);
const big = await rawAnswer(`GET /${"a".repeat(20 * 1024)} HTTP/1.1\r\nHost: probe\r\n\r\n`);
figures["path_20KB"] = { status_line: big.split("\r\n")[0], body: big.split("\r\n\r\n")[1] ?? "" };
const batch = await fetch(new URL(`/trpc/${Array(21).fill("auth.me").join(",")}?batch=1`, base));
figures["trpc_batch_21"] = batch.status;
const cursor = Buffer.from(JSON.stringify({ v: 1, k: "" })).toString("base64url");
figures["forged_cursor"] = (await call("GET", `/v1/operators?cursor=${cursor}`)).status;
const nul = await call("POST", "/console/api-keys", { name: "a\u0000b\u202e" }, { cookie: await signIn() });
figures["api_key_name_with_nul_and_rlo"] = nul.status;
const key = (await call("POST", "/console/api-keys", { name: "probe" }, { cookie: await signIn() })).body.data.key as string;
figures["logout_with_api_key_only"] = (await call("POST", "/auth/logout", undefined, { "x-api-key": key })).status;
console.log(JSON.stringify(figures, null, 2));
