import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseRunCoordinator, startCron } from "../jobs/cron.ts";
import { ensureAccount, startTestServer, type TestServer } from "../../testing/index.ts";
import { startWebhookRuntime } from "./runtime.ts";
import { catalogChangeFeed } from "../catalog/changes/feed.ts";
import { ir21Headers } from "../../testing/webhooks.ts";
import { DeliveryWorker } from "./delivery/worker.ts";
import { createSubscription, queueTestEvent } from "./subscriptions/subscriptions.ts";
import { startTestReceiver } from "../../testing/webhook-receiver.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  for (const id of ["usr_runtime000000000000", "usr_workerkill0000000000", "usr_workerproc0000000000"]) await ensureAccount(server, id);
});
afterAll(() => server.close());

const until = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("periodic jobs", () => {
  it("the database coordinator lets exactly one instance run a slot", async () => {
    const a = databaseRunCoordinator(server.deps.db, "instance-a");
    const b = databaseRunCoordinator(server.deps.db, "instance-b");
    const key = "webhooks.test:2026-11-23T04:00:05.000Z";
    const answers = await Promise.all([a.shouldRun(key, 1000), b.shouldRun(key, 1000), a.shouldRun(key, 1000)]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await b.shouldRun("webhooks.test:2026-11-23T04:00:06.000Z", 1000)).toBe(true);
  });

  it("two instances scheduling the same job run each slot once", async () => {
    const runs: string[] = [];
    const job = (instance: string) => ({ name: `webhooks.dedupe-${server.target}`, schedule: "* * * * * *", run: async () => runs.push(`${instance}@${Math.floor(Date.now() / 1000)}`) });
    const a = startCron([job("a")], { db: server.deps.db, owner: "a", log: server.deps.log });
    const b = startCron([job("b")], { db: server.deps.db, owner: "b", log: server.deps.log });
    await new Promise((r) => setTimeout(r, 2_600));
    await Promise.all([a.stop(), b.stop()]);
    const seconds = runs.map((r) => r.split("@")[1]);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seconds).size).toBe(seconds.length);
  });
});

function spawnWorker() {
  const bin = fileURLToPath(new URL("../../bin/ir21-server.js", import.meta.url));
  const child = spawn(process.execPath, [bin, "worker"], {
    env: {
      ...process.env,
      NODE_ENV: "test",
      DATABASE_URL: server.deps.config.databaseUrl,
      DATA_DIR: server.dir,
      SESSION_SECRET: server.deps.secrets.session,
      OTP_PEPPER: server.deps.secrets.otpPepper,
      WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe("runtime", () => {
  it("the in-process worker delivers queued events and stops cleanly", async () => {
    const receiver = await startTestReceiver();
    const env = server.deps.webhooks;
    const runtime = startWebhookRuntime(server.deps.webhooks, { cron: false, feeds: [catalogChangeFeed], listen: server.deps.listenHub.settings, endpointConcurrency: 2 });
    try {
      const { item } = await createSubscription(env, "usr_runtime000000000000", { url: `${receiver.url}/in-process`, events: ["ir21.catalog.updated"] });
      await queueTestEvent(env, "usr_runtime000000000000", item.id, { version: "v1" });
      await until(() => receiver.requests.length === 1);
    } finally {
      await runtime.stop();
      await receiver.close();
    }
  });

  it("a worker process killed mid-delivery (kill -9): its subscription's other deliveries flow once its heartbeat lapses, its own after their lease", async () => {
    const receiver = await startTestReceiver();
    receiver.respond({ hang: true }, { hang: true });
    const env = server.deps.webhooks;
    server.clock.set(Date.now()); // the separate process runs on the real clock
    const userId = "usr_workerkill0000000000";
    const { item } = await createSubscription(env, userId, { url: `${receiver.url}/killed`, events: ["ir21.catalog.updated"] });
    const queued: string[] = [];
    for (let i = 0; i < 3; i++) queued.push((await queueTestEvent(env, userId, item.id, { version: "v1" })).deliveryId);
    const worker = spawnWorker();
    try {
      // The separate worker holds two (its per-subscription cap) on the (hanging) receiver: kill it there.
      await until(() => receiver.requests.length === 2, 20_000);
      process.kill(worker.child.pid!, "SIGKILL");
      await worker.exited;
      const rows = await server.deps.db.selectFrom("webhook_deliveries").selectAll().where("id", "in", queued).execute();
      const leased = rows.filter((r) => r.lease_until !== null);
      expect(leased.map((r) => `${r.status}/${r.attempts}`)).toEqual(["pending/0", "pending/0"]);
      const { alive_until } = await server.deps.db.selectFrom("webhook_workers").select("alive_until").where("owner", "=", leased[0]!.lease_owner!).executeTakeFirstOrThrow();
      const leaseUntil = Math.min(...leased.map((r) => Number(r.lease_until)));
      expect(Number(alive_until)).toBeLessThan(leaseUntil);

      const survivor = new DeliveryWorker(env, { owner: "survivor" });
      server.clock.set(Number(alive_until));
      expect(await survivor.drain()).toBe(0); // the dead worker still counts as alive: its two hold the cap
      server.clock.set(Number(alive_until) + 1);
      expect(await survivor.drain()).toBe(1); // the third goes out; the dead worker's two wait for their lease
      expect(receiver.requests).toHaveLength(3);
      server.clock.set(leaseUntil - 1);
      expect(await survivor.drain()).toBe(0);
      server.clock.set(Math.max(...leased.map((r) => Number(r.lease_until))) + 1);
      expect(await survivor.drain()).toBe(2);
      const done = await server.deps.db.selectFrom("webhook_deliveries").selectAll().where("id", "in", queued).execute();
      expect(done.map((r) => `${r.status}/${r.response_status}/${r.attempts}`)).toEqual(Array(3).fill("delivered/200/1"));
      // At least once: the two cut off mid-delivery went out again with their event ids.
      const eventIds = receiver.requests.map((r) => ir21Headers(r.headers).eventId);
      expect(eventIds).toHaveLength(5);
      expect(new Set(eventIds).size).toBe(3);
    } catch (error) {
      worker.child.kill("SIGKILL");
      throw new Error(`${(error as Error).message}\n${worker.output()}`);
    } finally {
      await receiver.close();
    }
  }, 40_000);

  it("`ir21-server worker` runs as its own process, delivers, and exits 0 on SIGTERM", async () => {
    const receiver = await startTestReceiver();
    const env = server.deps.webhooks;
    // The separate process runs on the real clock: queue the delivery at real time so it is due there.
    server.clock.set(Date.now());
    const userId = "usr_workerproc0000000000";
    const { item } = await createSubscription(env, userId, { url: `${receiver.url}/separate`, events: ["ir21.catalog.updated"] });
    const { deliveryId } = await queueTestEvent(env, userId, item.id, { version: "v1" });
    const { child, exited, output: logged } = spawnWorker();
    try {
      await until(() => receiver.requests.length === 1, 20_000);
      // The separate process signed with the secret sealed by this server (same SESSION_SECRET).
      await until(async () => (await server.deps.db.selectFrom("webhook_deliveries").select("status").where("id", "=", deliveryId).executeTakeFirstOrThrow()).status === "delivered");
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } catch (error) {
      child.kill("SIGKILL");
      throw new Error(`${(error as Error).message}\n${logged()}`);
    } finally {
      await receiver.close();
    }
  }, 40_000);
});

describe("graceful shutdown", () => {
  it("stop() leaves none of the runtime's timers, and the process then ends by itself", async () => {
    // A separate process, as `serve` and `worker` run it, that never calls process.exit: it ends only
    // when no timer, socket or other handle is left. It prints what is still active after stopping.
    const url = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
    const script = `
      import { register } from "tsx/esm/api";
      register();
      const { loadConfig } = await import(${url("../config.ts")});
      const { createDeps } = await import(${url("../app/deps.ts")});
      const { startWebhooks } = await import(${url("../app/background.ts")});
      const deps = await createDeps(loadConfig());
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout" || r === "Immediate").length;
      const before = timers(); // the database pool's and Redis client's own, if any
      const runtime = startWebhooks(deps);
      // Long enough for the fan-out job (every 5 s) to run and the worker to poll a few times.
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      const running = timers();
      await runtime.stop();
      console.log("TIMERS " + JSON.stringify({ before, running, stopped: timers() }));
      await deps.close();
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: { ...process.env, ...server.deps.config.env, NODE_ENV: "test", LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    // A liveness bound, not a speed assertion: a leaked interval would keep the process forever.
    const code = await new Promise<number | null>((resolve) => {
      const deadline = setTimeout(() => {
        child.kill("SIGKILL");
        resolve(null);
      }, 25_000);
      child.on("exit", (c) => {
        clearTimeout(deadline);
        resolve(c);
      });
    });
    expect(code, output).toBe(0);
    const timers = JSON.parse(/TIMERS (.*)/.exec(output)?.[1] ?? "null") as { before: number; running: number; stopped: number } | null;
    expect(timers, output).not.toBeNull();
    expect(timers!.running, output).toBeGreaterThan(timers!.before); // the runtime's timers are visible...
    expect(timers!.stopped, output).toBeLessThanOrEqual(timers!.before); // ... and all gone after stop()
  }, 40_000);
});
