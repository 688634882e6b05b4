import { describe, expect, it } from "vitest";
import { answerAtEndOfTurn, atEndOfTurn, endOfTurn } from "./end-of-turn.ts";

const microtasks = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe("answers at the end of the event-loop turn", () => {
  it("holds answers made in one turn until its check phase, then releases them together", async () => {
    const released: string[] = [];
    const fetch = answerAtEndOfTurn(async (request) => new Response(new URL(request.url).pathname));
    const first = fetch(new Request("http://x/a")).then(async (r) => released.push(await r.text()));
    const second = fetch(new Request("http://x/b")).then(async (r) => released.push(await r.text()));
    // Both handlers have long finished after this many microtasks; their answers are still held.
    await microtasks(50);
    expect(released).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([first, second]);
    expect(released.sort()).toEqual(["/a", "/b"]);
  });

  it("shares one check-phase wait per turn and starts a new one after it", async () => {
    const a = endOfTurn();
    const b = endOfTurn();
    expect(a).toBe(b);
    await a;
    const c = endOfTurn();
    expect(c).not.toBe(a);
    await c;
  });

  it("releases tasks in the check phase, in the order given; one added while releasing waits for the next turn", async () => {
    const released: string[] = [];
    const task = (name: string, then?: () => void) => ({
      release() {
        released.push(name);
        then?.();
      },
    });
    atEndOfTurn(task("a", () => atEndOfTurn(task("c"))));
    atEndOfTurn(task("b"));
    await microtasks(50);
    expect(released).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toEqual(["a", "b"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toEqual(["a", "b", "c"]);
  });

  it("passes a handler's failure through", async () => {
    const fetch = answerAtEndOfTurn(async () => {
      throw new Error("boom");
    });
    await expect(fetch(new Request("http://x/"))).rejects.toThrow("boom");
  });
});
