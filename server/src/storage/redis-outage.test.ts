import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import { credentialHash } from "../access/credential-cache.ts";
import { createApiKey, signIn, startPrivateRedis, startTestServer, testTarget, type PrivateRedis, type SignedIn, type TestServer } from "../../testing/index.ts";

/*
 * Redis as a dependency that can fail (docs/operations.md "Redis unavailable"): a private redis-server
 * is killed with kill -9 under two instances of one deployment, and started again on the same port.
 * Nothing here measures time: that requests do not wait on the absent Redis is shown by counting what
 * reaches it (the circuit's counters), and the latency it buys is tests/bench/redis-outage.bench.ts's.
 * The circuit runs on the servers' ManualClock, so it stays open until the test moves the clock.
 */

const NUMBER = "/v1/lookup?number=%2B8613800138000";

async function until(what: string, condition: () => boolean | Promise<boolean>, withinMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > withinMs) throw new Error(`not reached within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The `r` (remaining) of a RateLimit header: which count the answer was made with. */
function remaining(response: { headers: Headers }): number {
  const match = /;r=(\d+);/.exec(response.headers.get("RateLimit") ?? "");
  if (!match) throw new Error(`no RateLimit field: ${response.headers.get("RateLimit")}`);
  return Number(match[1]);
}

const messages = (server: TestServer, prefix: string) => server.logs.entries().filter((e) => String(e.msg).startsWith(prefix));

describe.runIf(testTarget() === "mysql")("a Redis outage (private redis-server, two instances)", () => {
  let redis: PrivateRedis;
  let a: TestServer;
  let b: TestServer;
  let alice: SignedIn;
  // ioredis prints "[ioredis] Unhandled error event" with a stack through console.error when nothing
  // listens for a client's errors; nothing may reach the console (every line the server writes is JSON).
  let consoleCalls: Array<MockInstance> = [];

  beforeAll(async () => {
    consoleCalls = (["log", "info", "warn", "error", "debug"] as const).map((method) => vi.spyOn(console, method));
    redis = await startPrivateRedis();
    // A long credential TTL: on the other instance, only the bus (or not caching) can explain a 401.
    a = await startTestServer({ dataset: "demo", env: { REDIS_URL: redis.url, CREDENTIAL_CACHE_SECONDS: "300", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000" } });
    b = await startTestServer({ instanceOf: a });
    alice = await signIn(a);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.stop();
    for (const spy of consoleCalls) spy.mockRestore();
  });

  it("with Redis up, both instances count one rate limit in it", async () => {
    const tried = a.deps.store.circuit!.counters.admitted;
    const first = remaining(await a.fetch(NUMBER));
    expect(remaining(await b.fetch(NUMBER))).toBe(first - 1);
    expect(a.deps.store.circuit!.state).toBe("closed");
    expect(a.deps.store.circuit!.counters.admitted).toBeGreaterThan(tried); // the counters count commands
  });

  it("with Redis killed, every kind of request keeps succeeding on both instances, and Redis is not tried while the circuit is open", async () => {
    const key = await createApiKey(a, alice);
    expect((await b.fetch(NUMBER, { headers: key.headers })).status).toBe(200);

    await redis.kill();
    await until("both circuits open", () => a.deps.store.circuit!.state === "open" && b.deps.store.circuit!.state === "open");
    await until("both buses not live", () => !a.deps.invalidations.live && !b.deps.invalidations.live);
    const tried = { a: a.deps.store.circuit!.counters.admitted, b: b.deps.store.circuit!.counters.admitted };

    // Anonymous: counted in this instance's memory meanwhile (each answer one less).
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await a.fetch(NUMBER);
      expect(response.status).toBe(200);
      counts.push(remaining(response));
    }
    expect(counts).toEqual(counts.map((_, i) => counts[0]! - i));
    for (const server of [a, b]) {
      expect((await server.fetch(NUMBER, { headers: key.headers })).status).toBe(200);
      expect((await server.fetch("/v1/countries", { headers: key.headers })).status).toBe(200);
      expect((await server.fetch("/v1/countries")).status).toBe(200);
    }
    // Sign-in (SMS code and login, with its per-address limit), console reads and writes, contact.
    const bob = await signIn(a);
    expect((await a.json("/auth/me", { headers: bob.headers })).status).toBe(200);
    expect((await b.json("/console/api-keys", { headers: alice.headers })).status).toBe(200);
    const second = await createApiKey(b, bob);
    expect((await a.fetch(NUMBER, { headers: second.headers })).status).toBe(200);
    expect((await a.json("/contact", { method: "POST", body: { name: "A", email: "a@example.com", company: "C", message: "during the outage" } })).status).toBe(200);
    expect((await a.json("/readyz")).status).toBe(200);

    expect(a.deps.store.circuit!.counters.admitted).toBe(tried.a);
    expect(b.deps.store.circuit!.counters.admitted).toBe(tried.b);

    // Once the open interval has passed on the clock, one command probes (and fails); the rest wait
    // for the next interval.
    a.clock.advance(a.deps.config.redisLimits.circuitOpenMs);
    for (let i = 0; i < 5; i++) expect((await a.fetch(NUMBER)).status).toBe(200);
    expect(a.deps.store.circuit!.counters.admitted).toBe(tried.a + 1);
    expect(a.deps.store.circuit!.state).toBe("open");
  });

  it("a key revoked during the outage is refused by the other instance at once (its cache is bypassed while the bus is not live)", async () => {
    const key = await createApiKey(a, alice);
    expect((await b.fetch(NUMBER, { headers: key.headers })).status).toBe(200);
    expect((await b.fetch(NUMBER, { headers: key.headers })).status).toBe(200);
    expect(b.deps.credentials.get(credentialHash(key.key))).toBeUndefined();
    expect((await a.json(`/console/api-keys/${key.id}`, { method: "DELETE", headers: alice.headers })).status).toBe(200);
    expect((await b.fetch(NUMBER, { headers: key.headers })).status).toBe(401);
    // The invalidation could not be sent: the outage line covers it, not one warning per message.
    expect(messages(a, "could not publish")).toEqual([]);
  });

  it("the outage is one log line, then at most one summary per interval; nothing reaches the console", async () => {
    expect(messages(a, "Redis unavailable")).toHaveLength(1);
    expect(messages(a, "Redis unavailable")[0]).toMatchObject({ level: "error" });
    expect(messages(a, "Redis still unavailable")).toEqual([]);
    // The clients keep reconnecting (and failing) in real time; a summary comes with the first
    // failure after the interval has passed on the clock.
    a.clock.advance(30_000);
    await until("a summary", () => messages(a, "Redis still unavailable").length > 0);
    await until("another failed reconnect", () => {
      const errors = messages(a, "Redis still unavailable")[0]!.errors as number;
      return errors > 0;
    });
    expect(messages(a, "Redis still unavailable")).toHaveLength(1);
    expect(messages(a, "Redis still unavailable")[0]).toMatchObject({ level: "warn", last_error: expect.stringContaining("ECONNREFUSED") });
    for (const spy of consoleCalls) expect(spy).not.toHaveBeenCalled();
  });

  it("Redis restarted on the same port: both instances recover by themselves (limits shared again, revocations through the bus)", async () => {
    await redis.start();
    await until("both circuits closed and buses live", () =>
      [a, b].every((s) => s.deps.store.circuit!.state === "closed" && s.deps.invalidations.live),
    );
    expect(messages(a, "Redis available again")).toHaveLength(1);
    expect(messages(b, "Redis available again")).toHaveLength(1);

    // The restarted Redis is empty: a count shared by both instances is counted there.
    const first = remaining(await b.fetch(NUMBER));
    expect(remaining(await a.fetch(NUMBER))).toBe(first - 1);
    expect(await a.deps.store.redis!.keys(`${a.deps.store.keyPrefix}rl:*`)).not.toEqual([]);

    // Caching again, and a revocation reaches the other instance through Redis (its TTL is 300 s).
    const key = await createApiKey(a, alice);
    expect((await b.fetch(NUMBER, { headers: key.headers })).status).toBe(200);
    expect(b.deps.credentials.get(credentialHash(key.key))).toMatchObject({ kind: "apiKey", id: key.id });
    expect((await a.json(`/console/api-keys/${key.id}`, { method: "DELETE", headers: alice.headers })).status).toBe(200);
    await until("the other instance refuses the revoked key", async () => (await b.fetch(NUMBER, { headers: key.headers })).status === 401, 5_000);

    for (const spy of consoleCalls) expect(spy).not.toHaveBeenCalled();
  });

  it("a hung Redis (stopped, its connections open): commands time out, the circuit opens, and the rest are not tried", async () => {
    const circuit = a.deps.store.circuit!;
    redis.pause();
    try {
      // No connection closes: only timeouts can tell, each after REDIS_COMMAND_TIMEOUT_MS.
      const answers = await Promise.all(Array.from({ length: 5 }, () => a.fetch(NUMBER).then((r) => r.status)));
      expect(answers).toEqual([200, 200, 200, 200, 200]);
      await until("the circuit open", () => circuit.state === "open");
      // The subscriber's connection looks fine, but messages may not get through: caches off.
      expect(a.deps.invalidations.live).toBe(false);
      const tried = circuit.counters.admitted;
      for (let i = 0; i < 5; i++) expect((await a.fetch(NUMBER)).status).toBe(200);
      expect(circuit.counters.admitted).toBe(tried);
    } finally {
      redis.resume();
    }
    // Nothing tells the client Redis is back (its connection never dropped): the next probe does.
    a.clock.advance(a.deps.config.redisLimits.circuitOpenMs);
    expect((await a.fetch(NUMBER)).status).toBe(200);
    await until("the circuit closed", () => circuit.state === "closed");
  });
});

/** A loopback port nothing listens on (taken from the kernel and released). */
async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

// No redis-server needed: runs on both projects.
describe("Redis unreachable from the start", () => {
  it("the server starts and serves without it, says so once, and keeps its caches off", async () => {
    const server = await startTestServer({ dataset: "demo", env: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } });
    try {
      expect(server.deps.store.circuit!.state).toBe("open");
      expect(server.deps.invalidations.live).toBe(false);
      const alice = await signIn(server);
      const key = await createApiKey(server, alice);
      expect((await server.fetch(NUMBER)).status).toBe(200);
      expect((await server.fetch(NUMBER, { headers: key.headers })).status).toBe(200);
      expect((await server.json("/console/api-keys", { headers: alice.headers })).status).toBe(200);
      expect((await server.json("/readyz")).status).toBe(200);
      expect(server.deps.store.circuit!.counters.admitted).toBe(0);
      expect(messages(server, "Redis unavailable")).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe.runIf(testTarget() === "mysql")("the server process's output during a Redis outage", () => {
  let redis: PrivateRedis;
  let setup: TestServer;
  let child: ChildProcess | null = null;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    setup = await startTestServer({ dataset: "demo" });
  }, 60_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
    await setup?.close();
    await redis?.stop();
  });

  it("every line `ir21-server serve` writes to stdout and stderr is one JSON object, through kill -9 and restart", async () => {
    const port = await closedPort();
    const config = setup.deps.config;
    child = spawn(process.execPath, [fileURLToPath(new URL("../../bin/ir21-server.js", import.meta.url)), "serve"], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "test",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: config.databaseUrl,
        REDIS_URL: redis.url,
        DATA_DIR: config.dataDir,
        SESSION_SECRET: config.secrets.session!,
        OTP_PEPPER: config.secrets.otpPepper!,
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    const url = `http://127.0.0.1:${port}`;
    const get = (path: string) => fetch(url + path).then((r) => r.status, () => 0);
    await until("the server answers", async () => (await get("/readyz")) === 200, 60_000);
    expect(await get(NUMBER)).toBe(200);

    await redis.kill();
    // Real time in this process: about a second of reconnects fails meanwhile.
    await until("the outage logged", () => output.includes("Redis unavailable"));
    for (let i = 0; i < 20; i++) expect(await get(NUMBER)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await redis.start();
    await until("the recovery logged", () => output.includes("Redis available again"));
    expect(await get(NUMBER)).toBe(200);

    const lines = output.split("\n").filter((line) => line.length > 0);
    const notJson = lines.filter((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return value === null || typeof value !== "object" || Array.isArray(value);
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    // The outage in two lines: its start and its end (the subscriber's loss and the failed
    // reconnects are part of it, not lines of their own).
    const msgs = lines.map((line) => String((JSON.parse(line) as { msg?: unknown }).msg));
    expect(msgs.filter((m) => /redis|invalidation/i.test(m))).toEqual([expect.stringMatching(/^Redis unavailable: /), "Redis available again"]);
  }, 120_000);
});
