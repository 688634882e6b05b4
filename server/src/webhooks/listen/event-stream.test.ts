import { describe, expect, it } from "vitest";
import { ListenEventStream } from "./event-stream.ts";

describe("ListenEventStream", () => {
  it("counts as congested once a reader stops taking bytes, and recovers when it reads again", async () => {
    const stream = new ListenEventStream({}, 1_024);
    const payload = { body: "x".repeat(300) };
    let sent = 0;
    while (!stream.congested && sent < 100) {
      stream.send("delivery", payload);
      sent++;
    }
    // Bounded by the high-water mark, not by how much the hub would like to send.
    expect(stream.congested).toBe(true);
    expect(sent).toBeLessThanOrEqual(4);
    expect(stream.congestedFor(1_000)).toBe(0);
    expect(stream.congestedFor(61_000)).toBe(60_000);
    const reader = stream.response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (stream.congested) text += decoder.decode((await reader.read()).value);
    expect(stream.congestedFor(62_000)).toBe(0);
    expect(text.startsWith(`event: delivery\ndata: ${JSON.stringify(payload)}\n\n`)).toBe(true);
    let closed = 0;
    stream.onClose(() => closed++);
    await reader.cancel();
    expect(closed).toBe(1);
    expect(stream.send("delivery", payload)).toBe(false);
  });

  it("ends with what was queued, then reports closed", async () => {
    const stream = new ListenEventStream({ "x-request-id": "req_1" });
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(stream.response.headers.get("x-accel-buffering")).toBe("no");
    expect(stream.response.headers.get("x-request-id")).toBe("req_1");
    stream.comment("ping");
    stream.send("end", { reason: "ended" }, "id_1");
    stream.close();
    expect(stream.closed).toBe(true);
    expect(await stream.response.text()).toBe(': ping\n\nid: id_1\nevent: end\ndata: {"reason":"ended"}\n\n');
  });
});
