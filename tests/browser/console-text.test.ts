/**
 * The console's text catalogues (web/src/i18n), without a browser: one register of address in
 * Chinese, and a label in both languages for every enumerated value the console shows — the contract's
 * enums from the server's schemas, the open fields' values from the server's answers over the
 * reference catalogue (docs/console.md "Languages"). The browser test (console.test.ts) checks the
 * rendered pages.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, startTestServer, type TestServer } from "@ir21/server/testing";
import { en } from "../../web/src/i18n/en.ts";
import { zh } from "../../web/src/i18n/zh.ts";
import { enumKey, numberTypeKind, NUMBER_KINDS, NUMBER_PLANS, type EnumKind } from "../../web/src/i18n/labels.ts";
import { CONTRACT_ENUMS, answeredValues, type AnsweredValues } from "./enums.ts";

const zhTexts = zh as Record<string, string>;
const enTexts = en as Record<string, string>;

/** The value's label in both languages; an empty list when it has them, else what is wrong. */
function labelProblems(kind: EnumKind, value: string): string[] {
  const key = enumKey(kind, value);
  if (!key) return [`${kind} ${value}: no text`];
  const problems: string[] = [];
  if (!enTexts[key]?.trim() || enTexts[key] === value) problems.push(`${kind} ${value}: no English label`);
  // A Chinese label is written in Chinese (a term such as VoIP or E.164 may stay beside it).
  if (!zhTexts[key] || zhTexts[key] === value || !/\p{Script=Han}/u.test(zhTexts[key])) problems.push(`${kind} ${value}: no Chinese label (${zhTexts[key]})`);
  return problems;
}

describe("the console's Chinese text", () => {
  it("addresses the reader one way only: 您, never 你", () => {
    const informal = Object.entries(zhTexts).filter(([, text]) => text.includes("你"));
    expect(informal, "texts using 你").toEqual([]);
    // The register is the formal one, not merely no address at all.
    expect(Object.values(zhTexts).filter((text) => text.includes("您")).length).toBeGreaterThan(5);
  });
});

describe("labels of the contract's enums", () => {
  for (const [kind, values] of Object.entries(CONTRACT_ENUMS) as Array<[EnumKind, readonly string[]]>) {
    it(`${kind}: every value has a label in both languages`, () => {
      expect(values.length).toBeGreaterThan(0);
      expect(values.flatMap((value) => labelProblems(kind, value))).toEqual([]);
    });
  }

  it("the browse filters offer every range kind and plan", () => {
    expect([...NUMBER_KINDS].sort()).toEqual([...CONTRACT_ENUMS.numberKind].sort());
    expect([...NUMBER_PLANS].sort()).toEqual([...CONTRACT_ENUMS.numberPlan].sort());
  });
});

describe("labels of the values the server answers with (reference catalogue)", () => {
  let server: TestServer;
  let answered: AnsweredValues;
  beforeAll(async () => {
    server = await startTestServer({ dataset: "reference" });
    answered = await answeredValues(server, await signIn(server));
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it("every network status of the catalogue has a label", () => {
    expect(answered.networkStatus).toContain("operational");
    expect(answered.networkStatus.flatMap((status) => labelProblems("networkStatus", status))).toEqual([]);
  });

  it("every number type a lookup answers has a label (as the range kind it is)", () => {
    // libphonenumber's FIXED_LINE is answered as fixed_line, and is the kind `fixed`.
    expect(answered.numberType).toEqual(expect.arrayContaining(["mobile", "fixed_line", "toll_free"]));
    expect(answered.numberType.flatMap((type) => labelProblems("numberKind", numberTypeKind(type)))).toEqual([]);
    expect(answered.validationReason.flatMap((reason) => labelProblems("validationReason", reason))).toEqual([]);
    expect(answered.holderReason.flatMap((reason) => labelProblems("holderReason", reason))).toEqual([]);
  });

  it("every plan the server offers has a name in both languages", () => {
    expect(answered.planId).toContain("free");
    expect(answered.planId.flatMap((id) => labelProblems("plan", id))).toEqual([]);
  });
});
