/**
 * Writes src/wire.ts: the server contract's wire types (zod-inferred in @ir21/server) printed as plain
 * TypeScript, and src/wire.check.ts, which asserts at type-check time that each printed type still
 * equals the server's. The SDK's published declarations therefore carry the contract's shapes without
 * importing zod, and `pnpm typecheck` fails as soon as the contract changes until this is re-run:
 *
 *   pnpm --filter @ir21/sdk wire-types
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { EVENT_TYPES } from "../../server/src/contract/events.ts";

/** The contract types the SDK exposes, in output order. Add a name here when the SDK starts using it. */
const WIRE_TYPES = [
  "SourceMode",
  "EnvelopeMeta",
  "ErrorCode",
  "ErrorBody",
  "EventType",
  "EventPayload",
  "User",
  // The catalogue (contract/catalog.ts): full and public projections.
  "Country",
  "Operator",
  "PublicOperator",
  "Network",
  "PublicNetwork",
  "NumberRange",
  "Capability",
  "SourceDescriptor",
  "DatasetCounts",
  "DataMeta",
  "NumberRangeCounts",
  "OperatorDetail",
  "PublicOperatorDetail",
  "CountryDetail",
  "NumberLookup",
  "PublicNumberLookup",
  "ImsiLookup",
  "PublicImsiLookup",
  "BatchLookupItemError",
  // Webhooks (contract/webhooks.ts).
  "DeliveryStatus",
  "WebhookSubscription",
  "WebhookDelivery",
  "WebhookAttemptResponse",
  "WebhookAttempt",
  "ListenSession",
] as const;

/**
 * The contract's runtime lists the SDK re-exports as values (a receiver switches on event types, the
 * CLI offers them): printed from the server's own constants, and checked against the types above.
 */
const WIRE_VALUES = [{ name: "EVENT_TYPES", value: EVENT_TYPES, type: "EventType", docs: "Every event type of the contract, in the contract's order." }] as const;

const serverDir = fileURLToPath(new URL("../../server/", import.meta.url));
const sdkSrc = fileURLToPath(new URL("../src/", import.meta.url));
const entry = `${serverDir}src/index.ts`;

const configFile = ts.readConfigFile(`${serverDir}tsconfig.json`, ts.sys.readFile);
const config = ts.parseJsonConfigFileContent(configFile.config, ts.sys, serverDir);
const program = ts.createProgram([entry], { ...config.options, noEmit: true });
const checker = program.getTypeChecker();
const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
const exported = new Map(checker.getExportsOfModule(moduleSymbol).map((symbol) => [symbol.name, symbol]));

const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
const flags = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.MultilineObjectLiterals | ts.NodeBuilderFlags.InTypeAlias | ts.NodeBuilderFlags.IgnoreErrors;

/** Names exported only as schemas: checked against the schema's output type. */
const schemaOnly = new Set<string>();

/** Shapes already declared (whitespace-free printed text -> name), so later types can name them. */
const declared = new Map<string, string>();
const sourceFile = program.getSourceFile(entry)!;
const print = (node: ts.Node) => printer.printNode(ts.EmitHint.Unspecified, node, sourceFile);
const shapeOf = (node: ts.Node) => print(node).replace(/\s+/g, "");

/** Replaces every nested type whose printed shape is a declared type by a reference to it. */
function nameKnownShapes(root: ts.TypeNode): ts.TypeNode {
  const visit = (node: ts.Node): ts.Node => {
    if (node !== root && ts.isTypeNode(node)) {
      // `(A | B)[]`: the parentheses go with the union they hold.
      const name = declared.get(shapeOf(ts.isParenthesizedTypeNode(node) ? node.type : node));
      // Same printed type, same type: the substitution cannot change meaning (wire.check.ts proves it).
      if (name) return ts.factory.createTypeReferenceNode(name);
    }
    return ts.visitEachChild(node, visit, undefined);
  };
  return visit(root) as ts.TypeNode;
}

const declarations = WIRE_TYPES.map((name) => {
  const symbol = exported.get(name);
  if (!symbol) throw new Error(`@ir21/server does not export ${name}`);
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const node = checker.typeToTypeNode(wireTypeOf(name, target), undefined, flags);
  if (!node) throw new Error(`cannot print ${name}`);
  const named = nameKnownShapes(node);
  const text = print(named).replace(/    /g, "  ");
  // Keywords (string, unknown) are too common a shape to stand for a name.
  if (!ts.isToken(node) && node.kind !== ts.SyntaxKind.StringKeyword) declared.set(shapeOf(node), name);
  const docs = ts.displayPartsToString(target.getDocumentationComment(checker)) || ts.displayPartsToString(valueDocs(name));
  return `${docs ? `/**\n * ${docs.replace(/\n/g, "\n * ")}\n */\n` : ""}export type ${name} = ${text};\n`;
});

/** The declared type, or for a schema exported without a type of the same name, what it parses to. */
function wireTypeOf(name: string, symbol: ts.Symbol): ts.Type {
  if (symbol.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface)) return checker.getDeclaredTypeOfSymbol(symbol);
  schemaOnly.add(name);
  const zod = checker.getTypeOfSymbol(symbol).getProperty("_zod");
  const output = zod && checker.getTypeOfSymbol(zod).getProperty("output");
  if (!output) throw new Error(`${name} is neither a type nor a zod schema`);
  return checker.getTypeOfSymbol(output);
}

function valueDocs(name: string): ts.SymbolDisplayPart[] {
  // A zod-inferred type usually carries its documentation on the schema constant of the same name.
  const symbol = exported.get(name);
  const value = symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return value?.valueDeclaration ? value.getDocumentationComment(checker) : [];
}

const header = (what: string) =>
  `// Generated by sdk/scripts/wire-types.ts from @ir21/server's contract: do not edit.\n// ${what}\n// Re-run after a contract change: pnpm --filter @ir21/sdk wire-types\n\n`;

writeFileSync(
  `${sdkSrc}wire.ts`,
  header("The contract's wire types as plain TypeScript, so the published declarations need no zod.") +
    declarations.join("\n") +
    WIRE_VALUES.map(({ name, value, type, docs }) => `\n/** ${docs} */\nexport const ${name} = ${JSON.stringify(value, null, 2)} as const satisfies readonly ${type}[];\n`).join(""),
);
writeFileSync(
  `${sdkSrc}wire.check.ts`,
  header("Fails to type-check when a printed type no longer equals the server's (then regenerate).") +
    `import type * as Server from "@ir21/server";\nimport type * as Wire from "./wire.ts";\n\n` +
    `type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;\n` +
    `type Expect<T extends true> = T;\n\n` +
    `export type WireTypesMatchTheServer = [\n${WIRE_TYPES.map((name) => `  Expect<Equal<Wire.${name}, ${schemaOnly.has(name) ? `(typeof Server.${name})["_zod"]["output"]` : `Server.${name}`}>>,\n`).join("")}` +
    // A list names every member of its type, not just some (satisfies in wire.ts checks the other way).
    `${WIRE_VALUES.map(({ name, type }) => `  Expect<Equal<(typeof Wire.${name})[number], Server.${type}>>,\n`).join("")}];\n`,
);
console.log(`wrote ${WIRE_TYPES.length} types to sdk/src/wire.ts`);
