import { describe, expect, it } from "vitest";
import { maskPhone } from "./log.ts";
import { captureLogs } from "../testing/log-capture.ts";

describe("maskPhone", () => {
  it.each([
    ["13812345678", "138****5678"],
    ["+8613812345678", "138****5678"],
    ["+86 138-1234-5678", "138****5678"],
    ["call 0086 13812345678 now", "call 138****5678 now"],
  ])("%s -> %s", (input, expected) => {
    expect(maskPhone(input)).toBe(expected);
  });

  it("leaves longer digit runs and ids alone", () => {
    expect(maskPhone("order 213812345678901")).toBe("order 213812345678901");
    expect(maskPhone("usr_13812345678x")).toBe("usr_13812345678x".replace("13812345678", "138****5678"));
  });
});

describe("logger", () => {
  it("masks phones in fields and messages and redacts secret-named fields", async () => {
    const capture = captureLogs();
    capture.log.info(
      { phone: "+8613812345678", code: "482913", api_key: "ir21_abcdef", nested: { secret: "whsec_x", note: "sent to 13912345678" }, error: { code: "NOT_FOUND" } },
      "sms to 13812345678",
    );
    await new Promise((r) => setImmediate(r));
    const text = capture.text();
    expect(text).not.toContain("13812345678");
    expect(text).not.toContain("13912345678");
    expect(text).not.toContain("482913");
    expect(text).not.toContain("ir21_abcdef");
    expect(text).not.toContain("whsec_x");
    const [entry] = capture.entries();
    expect(entry).toMatchObject({ phone: "138****5678", code: "[redacted]", msg: "sms to 138****5678", error: { code: "NOT_FOUND" } });
  });
});
