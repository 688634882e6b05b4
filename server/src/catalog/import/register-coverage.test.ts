import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import {
  compareWithRegister,
  coverageOf,
  expectedAnswers,
  referenceBlocks,
  sampleInBlocks,
  validMobileSample,
  type AnswerFields,
  type ReferenceBlock,
} from "../../../testing/register-reference.ts";
import { runRegistersImport } from "../../app/commands/catalog.ts";

/**
 * Issue 30's target, on samples a lookup customer would send: random valid mobile numbers (by
 * libphonenumber) of the United Kingdom and France, whose registers ir21 packages whole, and random
 * numbers inside the blocks of the Canadian and Russian slices in server/fixtures/registers (the
 * whole files are the operator's to import; scripts/registers/coverage.ts measures them). Each answer
 * of /v1/lookup/batch is compared with the register's own rows, read by server/testing/register-reference.ts
 * (csv-parse, not the importer): a number of an assigned block answers the block's holder, any other
 * number of the register's coverage answers not_assigned, both naming the register and its file's
 * date. At least 99 % must agree; the disagreements are printed when they do not.
 */

const FIXTURES = new URL("../../../fixtures/registers/", import.meta.url);
const PACKAGED = new URL("../../../data/registers/", import.meta.url);
const fixture = (path: string) => gunzipSync(readFileSync(new URL(path, FIXTURES)));
const packaged = (path: string) => brotliDecompressSync(readFileSync(new URL(path, PACKAGED)));

let server: TestServer;
let key: Record<string, string>;
let dir: string;

beforeAll(async () => {
  server = await startTestServer({ dataset: "reference" });
  key = (await createApiKey(server, await signIn(server))).headers;
  dir = mkdtempSync(join(tmpdir(), "ir21-coverage-"));
  const write = (name: string, bytes: Buffer) => {
    writeFileSync(join(dir, name), bytes);
    return join(dir, name);
  };
  await runRegistersImport(server.deps, [write("COCodeStatus_ALL.csv", fixture("CA/COCodeStatus_ALL_2025-09-12.slice.csv.gz"))], {}, null);
  await runRegistersImport(server.deps, [write("DEF-9xx.csv", fixture("RU/DEF-9xx_2026-04.slice.csv.gz"))], { date: "2026-04-20" }, null);
}, 600_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Answers of /v1/lookup/batch, 100 numbers a request, in order. */
async function lookUp(numbers: string[]): Promise<AnswerFields[]> {
  const answers: AnswerFields[] = [];
  for (let i = 0; i < numbers.length; i += 100) {
    const res = await server.json("/v1/lookup/batch", { method: "POST", headers: { ...key, "content-type": "application/json" }, body: JSON.stringify({ numbers: numbers.slice(i, i + 100) }) });
    expect(res.status).toBe(200);
    answers.push(...res.body.data.items);
  }
  return answers;
}

async function expectCoverage(blocks: ReferenceBlock[], numbers: string[], source: { id: string; date: string }, alsoNotAssignedBy: Record<string, string> = {}) {
  const expected = expectedAnswers(blocks, numbers, coverageOf(source.id === "register:ca-cnac-co-codes" ? "cnac" : "ofcom", blocks));
  // The sample must test both sides: numbers the register assigns and numbers it does not.
  expect(expected.filter((e) => e.holderId).length).toBeGreaterThan(numbers.length / 4);
  const result = compareWithRegister(expected, await lookUp(numbers), source, alsoNotAssignedBy);
  expect({ share: result.share >= 0.99, disagree: result.disagree.slice(0, 20) }).toEqual({ share: true, disagree: expect.any(Array) });
  return result;
}

describe("register coverage on a customer's sample (issue 30 target: ≥ 99 %)", () => {
  it("the United Kingdom: random valid mobile numbers answer Ofcom S7's allocation", async () => {
    const blocks = referenceBlocks("ofcom", packaged("UK/S7_2025-09-13.csv.br"));
    const numbers = validMobileSample({ callingCode: "44", leading: ["7"], length: 10, count: 300, seed: 44 });
    expect(numbers.length).toBe(300);
    const result = await expectCoverage(blocks, numbers, { id: "register:gb-ofcom-s7", date: "2025-09-13" });
    expect(result.disagree).toEqual([]);
  }, 300_000);

  it("France: random valid mobile numbers answer ARCEP MAJNUM's attribution", async () => {
    const blocks = referenceBlocks("arcep-majnum", packaged("FR/MAJNUM_2026-04-17.csv.br"));
    const numbers = validMobileSample({ callingCode: "33", leading: ["6", "7"], length: 9, count: 300, seed: 33 });
    expect(numbers.length).toBe(300);
    const result = await expectCoverage(blocks, numbers, { id: "register:fr-arcep-majnum", date: "2026-04-17" }, {
      // A block MAJNUM does not attribute may be frozen (GELNUM, 2026-04-20): still not assigned, and GELNUM says why.
      "register:fr-arcep-gelnum": "2026-04-20",
    });
    expect(result.disagree).toEqual([]);
  }, 300_000);

  it("Canada (slice): numbers of the slice's codes answer CNAC's company or not_assigned", async () => {
    const blocks = referenceBlocks("cnac", fixture("CA/COCodeStatus_ALL_2025-09-12.slice.csv.gz"));
    const numbers = sampleInBlocks(blocks, 300, 1);
    const result = await expectCoverage(blocks, numbers, { id: "register:ca-cnac-co-codes", date: "2025-09-12" });
    expect(result.disagree).toEqual([]);
  }, 300_000);

  it("Russia (slice): numbers of the slice's ranges answer the holder's INN, the Ministry's reserve not_assigned", async () => {
    const blocks = referenceBlocks("ru-def", fixture("RU/DEF-9xx_2026-04.slice.csv.gz"));
    const numbers = sampleInBlocks(blocks, 300, 7);
    const result = await expectCoverage(blocks, numbers, { id: "register:ru-rossvyaz-def", date: "2026-04-20" });
    expect(result.disagree).toEqual([]);
  }, 300_000);
});
