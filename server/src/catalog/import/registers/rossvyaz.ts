import { blockOf, Collector, nonEmpty } from "./collect.ts";
import { Header, headerMatches, isBlank, openTable, type ColumnSpec, type ReaderInput, type RegisterReader } from "./reader.ts";
import type { BlockStatus, RegisterFile } from "./types.ts";

/**
 * The Russian register of the numbering resource (Rossvyaz, now the Ministry of Digital
 * Development's open data), `DEF-9xx.csv`: one row per range of subscriber numbers inside a
 * 3-digit code, `;`-separated, UTF-8 with a byte-order mark, LF, no quoting: operator names carry
 * bare double quotes (`ООО "Т2 Мобайл"`), so fields are split on `;` alone.
 *
 * Header `АВС/ DEF;От;До;Емкость;Оператор;Регион;ИНН` (the first letters are Cyrillic); the 2026
 * file adds `Территория ГАР` (the territory in the state address register) before `ИНН`. The ABC
 * files (3xx, 4xx, 8xx geographic codes) share the layout and are read the same way.
 *
 * A row `900;0000000;0061999` is the block `+7 900 0000000` to `+7 900 0061999`, kept as a range
 * (not decomposed into prefixes: a row is the register's unit of assignment). The holder is the
 * operator under its INN (taxpayer number), which stays when the register respells the name
 * (`ПАО "МегаФон"` → `ПАО "МЕГАФОН"`). The file carries no date.
 */

const COLUMNS = {
  code: { names: ["АВС/ DEF", "ABC/ DEF", "АВС/DEF", "ABC/DEF", "DEF"], required: true },
  from: { names: ["От"], required: true },
  to: { names: ["До"], required: true },
  capacity: { names: ["Емкость", "Ёмкость"], required: true },
  operator: { names: ["Оператор"], required: true },
  region: { names: ["Регион"], required: true },
  gar: { names: ["Территория ГАР"], required: false },
  inn: { names: ["ИНН"], required: true },
} satisfies Record<string, ColumnSpec>;

/**
 * The Ministry itself (МИНЦИФРЫ РОССИИ): ranges it holds are the state's reserve, withdrawn from or
 * never given to an operator, so they are `reserved`, not an operator's assignment.
 */
const MINISTRY_INN = "7710474375";

/** Russia's share of +7: codes 3xx, 4xx, 8xx and 9xx (6xx and 7xx are Kazakhstan's). */
const RUSSIAN_CODE = /^[3489]\d\d$/;

export const rossvyazReader: RegisterReader = {
  ids: ["ru-rossvyaz-def"],
  headerEncodings: ["utf-8", "windows-1251"],
  recognise: (head) => (head[0] !== undefined && headerMatches(head[0], ";", COLUMNS) ? "ru-rossvyaz-def" : null),
  read: readRossvyaz,
};

function readRossvyaz(input: ReaderInput): RegisterFile {
  // Older copies of the register were published in Windows-1251.
  const { collector, records } = openTable(input, "windows-1251", ";", false);
  const first = records[0];
  const header = new Header(first?.fields ?? [], COLUMNS);
  if (!first || header.missing.length > 0) {
    return Collector.refused(input.file, input.register, input.recognisedBy, collector.encoding, `not the Russian numbering register's header (missing ${header.missing.join(", ") || "everything: empty file"})`);
  }
  collector.seen();
  collector.list(first.line, "header", first.text);
  collector.columns(header.written(["code", "from", "to", "capacity", "operator", "region", "gar", "inn"]), header.unknown);
  collector.layout = header.has("gar") ? `${first.fields.length} columns, with Территория ГАР` : `${first.fields.length} columns`;

  for (const record of records.slice(1)) {
    collector.seen();
    const { fields, line } = record;
    if (isBlank(record)) {
      collector.list(line, "blank", "empty line");
      continue;
    }
    if (fields.length !== first.fields.length) {
      collector.list(line, "malformed", `${fields.length} fields, the header has ${first.fields.length} (a ";" inside a name would do this)`);
      continue;
    }
    const code = header.get(fields, "code")!.trim();
    const from = header.get(fields, "from")!.trim();
    const to = header.get(fields, "to")!.trim();
    if (!/^\d{3}$/.test(code) || !/^\d{7}$/.test(from) || !/^\d{7}$/.test(to)) {
      collector.list(line, "malformed", `"${code};${from};${to}" is not a 3-digit code with 7-digit From and To`);
      continue;
    }
    if (from > to) {
      collector.list(line, "malformed", `range ${code} ${from}–${to} ends before it starts`);
      continue;
    }
    if (!RUSSIAN_CODE.test(code)) {
      collector.list(line, "outside_numbering", `code ${code} is not Russian numbering (+7 3xx, 4xx, 8xx, 9xx)`);
      continue;
    }
    const capacity = header.get(fields, "capacity")!.trim();
    const size = Number(to) - Number(from) + 1;
    if (capacity !== String(size)) collector.warn(line, "capacity_mismatch", `Емкость ${capacity} is not the range's size ${size}; the range is kept`);
    const name = nonEmpty(header.get(fields, "operator"));
    const inn = nonEmpty(header.get(fields, "inn"))?.trim() ?? null;
    if (inn !== null && !/^\d{10}(?:\d{2})?$/.test(inn)) collector.warn(line, "holder_id", `ИНН "${inn}" is not 10 or 12 digits; kept as the holder's identifier`);
    if (name && inn === null) collector.warn(line, "holder_without_id", `operator "${name}" has no ИНН; its name stands as its identifier`);
    if (!name && inn === null) collector.warn(line, "no_holder", `range ${code} ${from}–${to} names no operator`);
    const holderId = inn ?? name;
    const status: BlockStatus = holderId === null ? "unknown" : inn === MINISTRY_INN ? "reserved" : "assigned";
    collector.block(
      blockOf({
        row: line,
        country: "RU",
        start: `7${code}${from}`,
        end: `7${code}${to}`,
        registerBlock: `${code};${from};${to}`,
        status,
        holder: holderId ? { id: holderId, name } : null,
        region: nonEmpty(header.get(fields, "region")),
        subdivision: nonEmpty(header.get(fields, "gar")),
      }),
    );
  }
  return collector.finish();
}
