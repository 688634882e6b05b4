import { ReplyError } from "ioredis";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../clock.ts";
import { captureLogs } from "../../testing/log-capture.ts";
import { RedisCircuit } from "./redis-circuit.ts";
import { meansUnavailable } from "./redis-connection.ts";
import { RedisOutageLog } from "./redis-outage-log.ts";

const timeout = new Error("Command timed out");

describe("RedisCircuit", () => {
  it("opens after consecutive failures, turns every command away while open, then lets exactly one probe through", () => {
    const clock = new ManualClock();
    const circuit = new RedisCircuit({ clock, openMs: 1000, failureThreshold: 3 });
    // A success in between resets the count: only consecutive failures open it.
    circuit.failed(circuit.admit()!, timeout);
    circuit.failed(circuit.admit()!, timeout);
    circuit.succeeded(circuit.admit()!);
    circuit.failed(circuit.admit()!, timeout);
    circuit.failed(circuit.admit()!, timeout);
    expect(circuit.state).toBe("closed");
    circuit.failed(circuit.admit()!, timeout);
    expect(circuit.state).toBe("open");
    expect(circuit.counters).toEqual({ admitted: 6, refused: 0, failed: 5, opened: 1 });

    for (let i = 0; i < 100; i++) expect(circuit.admit()).toBeNull();
    expect(circuit.refusing).toBe(true);
    clock.advance(999);
    expect(circuit.admit()).toBeNull();
    expect(circuit.counters.admitted).toBe(6); // not one command tried while open

    clock.advance(1);
    expect(circuit.refusing).toBe(false);
    expect(circuit.admit()).toBe("probe");
    expect(circuit.state).toBe("probing");
    // While the probe is out, the others are turned away (not made to wait for its outcome).
    for (let i = 0; i < 10; i++) expect(circuit.admit()).toBeNull();
    expect(circuit.counters).toEqual({ admitted: 7, refused: 111, failed: 5, opened: 1 });
  });

  it("a failed probe reopens it for another interval; a successful one closes it", () => {
    const clock = new ManualClock();
    const circuit = new RedisCircuit({ clock, openMs: 1000 });
    circuit.connectionLost("connection closed");
    clock.advance(1000);
    circuit.failed(circuit.admit()!, timeout);
    expect(circuit.state).toBe("open");
    expect(circuit.admit()).toBeNull();
    clock.advance(1000);
    const probe = circuit.admit();
    expect(probe).toBe("probe");
    circuit.succeeded(probe!);
    expect(circuit.state).toBe("closed");
    expect(circuit.admit()).toBe("closed");
    expect(circuit.counters.opened).toBe(2);
  });

  it("a lost connection opens it at once; the connection ready again lets the next command probe without waiting", () => {
    const clock = new ManualClock();
    const circuit = new RedisCircuit({ clock, openMs: 60_000 });
    const states: string[] = [];
    circuit.onChange((state) => states.push(state));
    circuit.connectionLost("connection closed");
    expect(circuit.admit()).toBeNull();
    circuit.connectionReady();
    expect(circuit.admit()).toBe("probe");
    circuit.succeeded("probe");
    expect(states).toEqual(["open", "probing", "closed"]);
  });

  it("the outcome of a command let through before the circuit opened does not close it", () => {
    const circuit = new RedisCircuit({ clock: new ManualClock(), openMs: 1000 });
    const early = circuit.admit()!;
    circuit.connectionLost("connection closed");
    circuit.succeeded(early);
    expect(circuit.state).toBe("open");
  });
});

describe("meansUnavailable", () => {
  it("takes Redis's own error replies for Redis being there, except the replies of a Redis that cannot serve", () => {
    expect(meansUnavailable(new ReplyError("NOSCRIPT No matching script"))).toBe(false);
    expect(meansUnavailable(new ReplyError("WRONGTYPE Operation against a key holding the wrong kind of value"))).toBe(false);
    expect(meansUnavailable(new ReplyError("LOADING Redis is loading the dataset in memory"))).toBe(true);
    expect(meansUnavailable(new ReplyError("CLUSTERDOWN The cluster is down"))).toBe(true);
    expect(meansUnavailable(new Error("Command timed out"))).toBe(true);
    expect(meansUnavailable(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
  });
});

describe("RedisOutageLog", () => {
  const messages = (logs: ReturnType<typeof captureLogs>) => logs.entries().map((e) => e.msg as string);

  it("one line when Redis goes, at most one summary per interval, one line when it is back", () => {
    const clock = new ManualClock();
    const logs = captureLogs();
    const circuit = new RedisCircuit({ clock, openMs: 1000 });
    const outages = new RedisOutageLog(logs.log, clock, circuit, { summaryMs: 30_000, settleMs: 0 });
    const refused = new Error("connect ECONNREFUSED 127.0.0.1:6390");

    circuit.connectionLost("connection closed");
    for (let i = 0; i < 50; i++) outages.error("commands", refused);
    for (let i = 0; i < 20; i++) circuit.admit();
    expect(messages(logs)).toEqual([expect.stringMatching(/^Redis unavailable: serving without it/)]);
    expect(logs.entries()[0]).toMatchObject({ level: "error", reason: "connection closed" });

    clock.advance(30_000);
    outages.error("invalidations", refused);
    outages.error("commands", refused);
    expect(messages(logs).slice(1)).toEqual(["Redis still unavailable"]);
    expect(logs.entries()[1]).toMatchObject({ level: "warn", errors: 51, commands_not_tried: 20, last_error: "Error: connect ECONNREFUSED 127.0.0.1:6390" });

    // A failed probe within the interval adds nothing; after it, it summarises too.
    clock.advance(1000);
    circuit.failed(circuit.admit()!, refused);
    expect(messages(logs)).toHaveLength(2);
    clock.advance(30_000);
    circuit.failed(circuit.admit()!, refused);
    expect(messages(logs).slice(2)).toEqual(["Redis still unavailable"]);
    expect(logs.entries()[2]).toMatchObject({ errors: 1 });

    clock.advance(5_000);
    circuit.connectionReady();
    circuit.succeeded(circuit.admit()!);
    expect(messages(logs).slice(3)).toEqual(["Redis available again"]);
    expect(logs.entries()[3]).toMatchObject({ level: "warn", down_ms: 66_000, errors: 52 });
  });

  /** Past the (zero) settling delay of the lines about one connection. */
  const settled = () => new Promise((resolve) => setTimeout(resolve, 5));

  it("errors without an outage (a connection that drops and comes back) are logged at most once per interval", async () => {
    const clock = new ManualClock();
    const logs = captureLogs();
    const outages = new RedisOutageLog(logs.log, clock, new RedisCircuit({ clock, openMs: 1000 }), { summaryMs: 30_000, settleMs: 0 });
    outages.error("invalidations", new Error("read ECONNRESET"));
    await settled();
    for (let i = 0; i < 9; i++) outages.error("invalidations", new Error("read ECONNRESET"));
    await settled();
    clock.advance(30_000);
    outages.error("invalidations", new Error("read ECONNRESET"));
    await settled();
    expect(logs.entries()).toEqual([
      expect.objectContaining({ msg: "Redis connection error; the client reconnects by itself", connection: "invalidations", reason: "Error: read ECONNRESET", count: 1 }),
      expect.objectContaining({ msg: "Redis connection error; the client reconnects by itself", count: 10 }),
    ]);
  });

  it("an error followed by the circuit opening (all of Redis away) is said by the outage line alone", async () => {
    const clock = new ManualClock();
    const logs = captureLogs();
    const circuit = new RedisCircuit({ clock, openMs: 1000 });
    const outages = new RedisOutageLog(logs.log, clock, circuit, { summaryMs: 30_000, settleMs: 0 });
    outages.error("commands", new Error("read ECONNRESET"));
    circuit.connectionLost("connection closed");
    await settled();
    expect(logs.entries().map((e) => e.msg)).toEqual([expect.stringMatching(/^Redis unavailable/)]);
  });

  it("says nothing once stopped (the store closing its own connections)", () => {
    const clock = new ManualClock();
    const logs = captureLogs();
    const circuit = new RedisCircuit({ clock, openMs: 1000 });
    const outages = new RedisOutageLog(logs.log, clock, circuit);
    outages.stop();
    circuit.connectionLost("connection closed");
    outages.error("commands", new Error("Connection is closed."));
    expect(logs.entries()).toEqual([]);
  });
});
