// The import rules of the code base (docs/architecture.md "Floors and the rules that keep them"),
// checked by dependency-cruiser in `pnpm test` (`pnpm deps:check`). A new import that breaks one
// fails the suite with the rule's name and the two files.
const SRC = "^server/src/";
// Tests stand where their subject is but use it as a client would, from the top (the real server):
// they may import any floor. Only product code is held to the floors.
const TEST = "\\.test\\.ts$";
// The server's floors, top to bottom: a floor may import its own and any lower floor's files, never a
// higher one's (type-only imports aside: a type says what a value looks like, it runs nothing).
const FLOORS = [
  { name: "app", path: `${SRC}app/` },
  { name: "served pages", path: `${SRC}(docs|web)/` },
  { name: "domains", path: `${SRC}(auth|console|contact|catalog|webhooks)/` },
  { name: "data-api and trpc", path: `${SRC}(data-api|trpc)/` },
  { name: "access and metering", path: `${SRC}(access|metering)/` },
  { name: "http", path: `${SRC}http/` },
];
const upward = FLOORS.flatMap((floor, i) =>
  FLOORS.slice(0, i).map((higher) => ({
    name: `no-upward-import: ${floor.name} -> ${higher.name}`,
    comment: "A lower floor must not import a higher one at run time (docs/architecture.md).",
    severity: "error",
    from: { path: floor.path, pathNot: TEST },
    to: { path: higher.path, dependencyTypesNot: ["type-only"] },
  })),
);
// The base floor (contract, db, storage, jobs, observability and the root files) imports nothing above it.
const base = {
  name: "no-upward-import: base -> any floor",
  comment: "contract/, db/, storage/, jobs/, observability/ and the files at the root of server/src are the ground floor.",
  severity: "error",
  from: { path: `${SRC}(contract|db|storage|jobs|observability)/|${SRC}[^/]+\\.ts$`, pathNot: `${SRC}index\\.ts$|${TEST}` },
  to: { path: FLOORS.map((f) => f.path).join("|"), dependencyTypesNot: ["type-only"] },
};
// Domains may lean on each other one way only: console on auth's sessions, webhooks on the catalogue's
// records and lineage. Everything else between them goes through the wiring.
const DOMAIN_EDGES = { auth: [], console: ["auth"], contact: [], catalog: [], webhooks: ["catalog"] };
const domains = Object.entries(DOMAIN_EDGES).map(([domain, allowed]) => ({
  name: `domain-to-domain: ${domain}`,
  comment: `${domain}/ may import ${allowed.length ? allowed.join(", ") : "no other domain"}; the wiring (app/) connects the rest.`,
  severity: "error",
  from: { path: `${SRC}${domain}/`, pathNot: TEST },
  to: { path: `${SRC}(${Object.keys(DOMAIN_EDGES).filter((d) => d !== domain && !allowed.includes(d)).join("|")})/` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import circle, type-only imports included: a circle makes the order of evaluation and of reading a guess.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...upward,
    base,
    ...domains,
    {
      name: "domains-never-import-the-wiring",
      comment: "A domain gets its narrow env from the wiring; it never reaches up for AppDeps or the app.",
      severity: "error",
      from: { path: `${SRC}(auth|console|contact|catalog|webhooks)/`, pathNot: TEST },
      to: { path: `${SRC}app/` },
    },
    {
      name: "domains-never-import-h3",
      comment: "Services and procedures are free of HTTP; the data API, tRPC and the wiring speak h3.",
      severity: "error",
      from: { path: `${SRC}(auth|console|contact|catalog|webhooks)/`, pathNot: TEST },
      to: { path: "node_modules/h3/" },
    },
    {
      name: "migrations-are-frozen-history",
      comment: "A migration imports only db/ and the query builder: today's code must not change what an old migration does.",
      severity: "error",
      from: { path: `${SRC}db/migrations/` },
      to: { pathNot: `${SRC}db/|node_modules/kysely/|^node:|^(fs|path|crypto)$` },
    },
    {
      name: "product-code-never-imports-test-helpers",
      comment: "server/testing/ is for tests only.",
      severity: "error",
      from: { path: SRC, pathNot: TEST },
      to: { path: "^server/testing/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"], conditionNames: ["import", "require", "node", "default"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
