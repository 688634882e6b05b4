// The registers' coverage on a customer's sample (issue 30's target), on the whole files: a real
// server (@ir21/server/testing, SQLite in a temporary folder, the reference data with the packaged
// Ofcom and ARCEP files), `import registers` of the Canadian and Russian files of a folder laid out
// as ../shared/registers, then random valid mobile numbers of each country (libphonenumber) through
// POST /v1/lookup/batch, each answer compared with the register's own rows as
// server/testing/register-reference.ts reads them (csv-parse, not the importer).
//
// Usage (from server/, whose tsx runs it):
//   node --import tsx ../scripts/registers/coverage.ts --source ../../shared/registers [--count 1000] [--seed 1]
// Prints one line per country: the sample, how many numbers the register assigns, how many answers
// agree with the register (holder, or not_assigned, with the register's source and date), and the
// first disagreements. The test suite runs the same comparison on the packaged files and the slices
// (server/src/catalog/import/register-coverage.test.ts); this script is for the figures of the whole files.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createApiKey, signIn, startTestServer } from "../../server/testing/index.ts";
import {
  compareWithRegister,
  coverageOf,
  expectedAnswers,
  referenceBlocks,
  validMobileSample,
  type AnswerFields,
  type RegisterFormat,
} from "../../server/testing/register-reference.ts";
import { runRegistersImport } from "../../server/src/app/commands/catalog.ts";

const { values } = parseArgs({ options: { source: { type: "string" }, count: { type: "string", default: "1000" }, seed: { type: "string", default: "1" } } });
if (!values.source) {
  console.error("usage: node --import tsx ../scripts/registers/coverage.ts --source <registers folder> [--count N] [--seed N]");
  process.exit(2);
}
const source = resolve(values.source);
const count = Number(values.count);
const seed = Number(values.seed);
const file = (path: string) => readFileSync(join(source, path));

interface Country {
  iso2: string;
  callingCode: string;
  leading: string[];
  length: number;
  format: RegisterFormat;
  file: string;
  registerSource: string;
  date: string;
  alsoNotAssignedBy?: Record<string, string>;
}
const COUNTRIES: Country[] = [
  { iso2: "CA", callingCode: "1", leading: ["2", "3", "4", "5", "6", "7", "8", "9"], length: 10, format: "cnac", file: "CA/COCodeStatus_ALL_2025-09-12.csv", registerSource: "register:ca-cnac-co-codes", date: "2025-09-12" },
  { iso2: "GB", callingCode: "44", leading: ["7"], length: 10, format: "ofcom", file: "UK/S7_2025-09-13.csv", registerSource: "register:gb-ofcom-s7", date: "2025-09-13" },
  {
    iso2: "FR",
    callingCode: "33",
    leading: ["6", "7"],
    length: 9,
    format: "arcep-majnum",
    file: "FR/MAJNUM_2026-04-17.csv",
    registerSource: "register:fr-arcep-majnum",
    date: "2026-04-17",
    alsoNotAssignedBy: { "register:fr-arcep-gelnum": "2026-04-20" },
  },
  { iso2: "RU", callingCode: "7", leading: ["9"], length: 10, format: "ru-def", file: "RU/DEF-9xx_2026-04.csv", registerSource: "register:ru-rossvyaz-def", date: "2026-04-20" },
];

const server = await startTestServer({ dataset: "reference" });
const dir = mkdtempSync(join(tmpdir(), "ir21-coverage-"));
try {
  const key = (await createApiKey(server, await signIn(server))).headers;
  const copy = (name: string, bytes: Buffer) => (writeFileSync(join(dir, name), bytes), join(dir, name));
  await runRegistersImport(server.deps, [copy("COCodeStatus_ALL.csv", file("CA/COCodeStatus_ALL_2025-09-12.csv"))], {}, null);
  await runRegistersImport(server.deps, [copy("DEF-9xx.csv", file("RU/DEF-9xx_2026-04.csv"))], { date: "2026-04-20" }, null);

  for (const country of COUNTRIES) {
    const numbers = validMobileSample({ ...country, count, seed: seed + Number(country.callingCode), region: country.iso2 });
    const blocks = referenceBlocks(country.format, file(country.file));
    const expected = expectedAnswers(blocks, numbers, coverageOf(country.format, blocks));
    const answers: AnswerFields[] = [];
    for (let i = 0; i < numbers.length; i += 100) {
      const res = await server.json("/v1/lookup/batch", {
        method: "POST",
        headers: { ...key, "content-type": "application/json" },
        body: JSON.stringify({ numbers: numbers.slice(i, i + 100) }),
      });
      answers.push(...res.body.data.items);
    }
    const result = compareWithRegister(expected, answers, { id: country.registerSource, date: country.date }, country.alsoNotAssignedBy);
    const assigned = expected.filter((e) => e.holderId).length;
    const withHolder = answers.filter((a) => a.range_holder).length;
    console.log(
      `${country.iso2}: ${numbers.length} valid mobile numbers, ${expected.filter((e) => e.covered).length} where the register speaks, ${assigned} in blocks it assigns; ` +
        `${result.agree} answers agree with the register (${(result.share * 100).toFixed(2)} %), ${withHolder} name a holder`,
    );
    for (const d of result.disagree.slice(0, 10)) console.log(`  ${d.number}: register ${d.expected}, answered ${d.answered}`);
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
