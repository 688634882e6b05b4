import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A `redis-server` of the test's own on a loopback port, to be killed and started again: what Redis
 * going away does to a server cannot be tried on the shared Redis other tests use. Nothing persists
 * (no RDB, no AOF), so a restart is an empty Redis, as after a crash without persistence.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** The running process's pid, or null while it is down. */
  readonly pid: number | null;
  /** `kill -9` by pid; resolves once the process has exited (its port refuses connections). */
  kill(): Promise<void>;
  /** Starts it again on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /**
   * SIGSTOP: the process keeps its connections open and answers nothing, as a hung or unreachable
   * Redis does (no connection is refused or closed); `resume` sends SIGCONT.
   */
  pause(): void;
  resume(): void;
  /** Kills it (if running) and removes its folder. */
  stop(): Promise<void>;
}

/** A port the kernel just handed out and released: free unless someone takes it in between. */
async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** PING over a raw socket (no client library: its retries would hide a refusal). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let answer = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"));
    });
  });
}

/**
 * Starts `redis-server` (Debian's package; CI installs it before the MariaDB + Redis stage) on a free
 * loopback port.
 * @example
 * const redis = await startPrivateRedis();
 * const server = await startTestServer({ env: { REDIS_URL: redis.url } });
 * await redis.kill(); // Redis is gone; the server should not notice beyond its fallbacks
 * await redis.start(); // back on the same port
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freeLoopbackPort();
  const dir = mkdtempSync(join(tmpdir(), "ir21-redis-"));
  let child: ChildProcess | null = null;

  const start = async () => {
    if (child) throw new Error("the private Redis is already running");
    const server = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--protected-mode", "no", "--loglevel", "warning"],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    server.stderr!.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise<never>((_, reject) =>
      server.once("exit", (code) => reject(new Error(`redis-server exited with ${code} at start: ${stderr.trim()}`))),
    );
    const spawned = new Promise<never>((_, reject) => server.once("error", (error) => reject(new Error(`cannot run redis-server (is the redis-server package installed?): ${error.message}`))));
    exited.catch(() => undefined);
    spawned.catch(() => undefined);
    child = server;
    const ready = (async () => {
      for (let i = 0; i < 200; i++) {
        if (await ping(port)) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`redis-server did not answer on port ${port}`);
    })();
    try {
      await Promise.race([ready, exited, spawned]);
    } catch (error) {
      server.kill("SIGKILL");
      child = null;
      throw error;
    }
  };

  const kill = async () => {
    const running = child;
    if (!running) return;
    child = null;
    if (running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    process.kill(running.pid!, "SIGKILL"); // a stopped (paused) process dies of it too
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid ?? null;
    },
    kill,
    start,
    pause: () => void (child && process.kill(child.pid!, "SIGSTOP")),
    resume: () => void (child && process.kill(child.pid!, "SIGCONT")),
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
