/**
 * The DOCTYPE of an IR.21 XML document, resolved before the XML is parsed (docs/ir21-format.md "Text").
 *
 * Why not the XML parser's own DTD reading: fast-xml-parser 5 skips every internal entity whose value
 * contains `&` (an entity built from another, or with `&amp;` in it) and leaves the reference in the
 * text as it stands, so `&op; Limited` became the operator's name; it throws a bare error on an
 * external entity. Neither of the maintained pure-JS XML parsers in use here expands internal
 * entities fully with limits, so this reads the internal subset itself:
 *
 * - internal general entities (`<!ENTITY op "Savanna Mobile">`) are expanded wherever they are
 *   referenced in the document, entities inside entities included, with bounds (depth, size) so an
 *   entity bomb ("billion laughs") is refused instead of filling memory;
 * - external entities (`SYSTEM`/`PUBLIC`) and parameter entities (`%`) are refused with a problem:
 *   nothing is ever fetched or read from disk (no XXE);
 * - an external DTD named by the DOCTYPE is not read (a warning says so); every other declaration
 *   (`ELEMENT`, `ATTLIST`) only describes the document and is ignored.
 */

export interface ResolvedDoctype {
  /** The document with the DOCTYPE blanked (line numbers kept) and internal entities expanded. */
  xml: string;
  /** The entity names declared and expanded. */
  entities: string[];
  warnings: string[];
}

/** How deep entities may refer to entities, and how long one expansion may grow. */
const MAX_DEPTH = 8;
const MAX_EXPANSION = 64 * 1024;
/** How much text all expansions together may add to the document. */
const MAX_TOTAL_GROWTH = 1024 * 1024;

const PREDEFINED = new Set(["amp", "lt", "gt", "quot", "apos"]);
const NAME = "[A-Za-z_:][\\w.:-]*";

const lineOf = (text: string, index: number) => text.slice(0, index).split("\n").length;

/** Where the DOCTYPE declaration ends: its `>` outside quotes and outside the `[ … ]` subset. */
function doctypeEnd(xml: string, start: number): number {
  let quote: string | null = null;
  let depth = 0;
  for (let i = start; i < xml.length; i++) {
    const c = xml[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "[") depth++;
    else if (c === "]") depth--;
    else if (c === ">" && depth === 0) return i;
  }
  return -1;
}

/**
 * Resolves the DOCTYPE, or lists why the document is refused. A document without a DOCTYPE comes back
 * unchanged.
 * @example
 * resolveDoctype('<!DOCTYPE r [<!ENTITY op "Savanna">]><r>&op; Ltd</r>') // { xml: "…<r>Savanna Ltd</r>", entities: ["op"], … }
 */
export function resolveDoctype(xml: string): ResolvedDoctype | { problems: string[] } {
  const start = xml.search(/<!DOCTYPE\b/i);
  if (start < 0) return { xml, entities: [], warnings: [] };
  const end = doctypeEnd(xml, start);
  if (end < 0) return { problems: [`not well-formed XML at line ${lineOf(xml, start)}: the DOCTYPE declaration is not closed`] };
  const doctype = xml.slice(start, end + 1);
  const problems: string[] = [];
  const warnings: string[] = [];
  const open = doctype.indexOf("[");
  const head = open < 0 ? doctype : doctype.slice(0, open);
  const externalDtd = /\b(SYSTEM|PUBLIC)\s+(["'])([^"']*)\2/i.exec(head);
  if (externalDtd) warnings.push(`the external DTD ${JSON.stringify(externalDtd[3])} named by the DOCTYPE was not read (nothing is fetched); entities it may declare are undefined`);
  const subset = open < 0 ? "" : doctype.slice(open + 1, doctype.lastIndexOf("]"));
  // Comments in the subset may mention declarations: they do not declare anything.
  const declarations = subset.replace(/<!--[\s\S]*?-->/g, "");

  const values = new Map<string, string>();
  const entity = new RegExp(`<!ENTITY\\s+(%\\s+)?(${NAME})\\s+(?:(["'])([\\s\\S]*?)\\3|(SYSTEM|PUBLIC)\\b[^>]*)\\s*>`, "gi");
  for (const m of declarations.matchAll(entity)) {
    const [, parameter, name, , value, external] = m;
    const line = lineOf(xml, start + (open < 0 ? 0 : open + 1) + subset.indexOf(m[0]));
    if (parameter) problems.push(`line ${line}: parameter entity %${name}; is refused (DTD parameter entities are not supported)`);
    else if (external) problems.push(`line ${line}: external entity &${name}; (${external.toUpperCase()}) is refused: external entities are never fetched or read`);
    else if (!values.has(name!)) values.set(name!, value!); // the first declaration binds (XML 1.0 §4.2)
  }
  if (/<!ENTITY\b/i.test(declarations.replace(entity, ""))) problems.push(`line ${lineOf(xml, start)}: an ENTITY declaration in the DOCTYPE could not be read`);

  // Expand each entity's value (entities in entities), bounded.
  const expanded = new Map<string, string>();
  const expand = (name: string, depth: number, chain: string[]): string => {
    const known = expanded.get(name);
    if (known !== undefined) return known;
    if (chain.includes(name)) throw new Error(`entity &${name}; refers to itself (${[...chain, name].map((n) => `&${n};`).join(" → ")})`);
    if (depth > MAX_DEPTH) throw new Error(`entity &${name}; nests more than ${MAX_DEPTH} entities deep`);
    const value = values.get(name)!.replace(new RegExp(`&(${NAME});`, "g"), (ref, inner: string) => (values.has(inner) ? expand(inner, depth + 1, [...chain, name]) : ref));
    if (value.length > MAX_EXPANSION) throw new Error(`entity &${name}; expands to more than ${MAX_EXPANSION} characters`);
    expanded.set(name, value);
    return value;
  };
  for (const name of values.keys()) {
    try {
      expand(name, 0, []);
    } catch (error) {
      problems.push(`${(error as Error).message}; the document is refused`);
      break;
    }
  }
  if (problems.length) return { problems };

  // Blank the DOCTYPE (keeping its line breaks, so later line numbers stay right), then replace the
  // references in the body, except inside comments and CDATA sections, where `&x;` is literal text.
  const blanked = xml.slice(0, start) + doctype.replace(/[^\n]/g, "") + xml.slice(end + 1);
  let growth = 0;
  const body = blanked.replace(/(<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>)|&([A-Za-z_:][\w.:-]*);/g, (all, literal: string | undefined, name: string | undefined) => {
    if (literal || !name || PREDEFINED.has(name) || !expanded.has(name)) return all;
    const value = expanded.get(name)!;
    growth += value.length;
    return value;
  });
  if (growth > MAX_TOTAL_GROWTH) return { problems: [`the document's entities expand to more than ${MAX_TOTAL_GROWTH} characters; the document is refused`] };
  return { xml: body, entities: [...expanded.keys()], warnings };
}
