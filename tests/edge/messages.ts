/**
 * The socket-level fuzzer's cases (tests/edge/README.md): raw HTTP/1.x messages as fast-check
 * arbitraries, so a run is seeded, reproducible and shrinkable. A case is one connection: one to
 * three pipelined requests, written in pieces (a slow writer, within a bound), maybe cut off, then the
 * client half-closes, waits for its answers, parks the connection past the edge's timers, or resets it.
 * A fifth of the cases aim at the body paths, where issue 31's crash was (see {@link requestFor}).
 *
 * Targets come from the running server: every path and method of its OpenAPI document with path
 * parameters filled (from the schema's enum, example or pattern, or any string), the web console's and
 * the ops' static paths, and tRPC procedures (named by the document's REST bindings), single or batched.
 * Framing is where the edge breaks: chunked bodies over and under the body limit, bad chunk sizes,
 * chunk extensions, trailers, a missing terminator, Content-Length with Transfer-Encoding, duplicate or
 * conflicting Content-Length, Expect: 100-continue, every method (CONNECT, TRACE, lower-case, unknown),
 * HTTP/1.0 with and without keep-alive, and header edge cases (obs-fold, bare LF, NUL, values near
 * node's 16 KiB header limit).
 */
import fc from "fast-check";

// ---------------------------------------------------------------------------------------------------
// The model

/** Where a request goes: a concrete request target and the method the server serves it with. */
export interface Route {
  method: string;
  target: string;
  /** The route reads a JSON body. */
  takesJson: boolean;
  /** e.g. "POST /contact", "tRPC batch of 3": for reports. */
  label: string;
}

export type HeaderQuirk =
  | { kind: "none" }
  | { kind: "obs-fold" }
  | { kind: "bare-lf" }
  | { kind: "nul" }
  | { kind: "bare-cr" }
  | { kind: "near-limit"; delta: number }
  | { kind: "many"; count: number }
  | { kind: "space-before-colon" }
  | { kind: "no-colon" }
  | { kind: "latin1" }
  | { kind: "empty-name" };

export type BodySpec = { kind: "none" } | { kind: "json"; text: string } | { kind: "padded"; size: number } | { kind: "bytes"; bytes: number[] };

export type LengthLie = "exact" | "short" | "long" | "duplicate" | "conflicting" | "list" | "not-a-number" | "negative" | "plus" | "huge";
export type ChunkSize = "lower" | "upper" | "zero-padded" | "smaller" | "larger" | "garbage";
export type ChunkEnd = "final" | "final-ext" | "trailers" | "no-final-crlf" | "missing" | "bad-trailer";

export type Framing =
  | { kind: "none" }
  | { kind: "length"; lie: LengthLie; by: number }
  | {
      kind: "chunked";
      /** Transfer-Encoding header values, one header line each. */
      te: readonly string[];
      /** A Content-Length beside Transfer-Encoding (request smuggling's classic). */
      alsoLength: null | "exact" | "zero";
      /** Where the body is cut into chunks, as fractions of its length. */
      splits: number[];
      size: ChunkSize;
      garbage: string;
      /** The chunk extension on every data chunk (`;…`), possibly longer than node accepts. */
      extension: string;
      end: ChunkEnd;
    };

export interface RequestSpec {
  route: Route;
  method: string;
  version: string;
  host: "normal" | "missing" | "empty" | "duplicate";
  connection: null | string;
  contentType: null | string;
  expect: null | string;
  /** Origin header: the console's (cookie writes need it), another site's, or none. */
  origin: null | "same" | "cross";
  extraHeaders: Array<[string, string]>;
  quirk: HeaderQuirk;
  body: BodySpec;
  framing: Framing;
}

export interface Case {
  requests: RequestSpec[];
  credentials: "none" | "session" | "api-key" | "bogus";
  /** Send only this fraction of the bytes (a request cut off mid-way), or everything. */
  cut: null | number;
  /** Write in pieces: split at these fractions, pausing after each piece (a slow writer). */
  writes: ReadonlyArray<{ at: number; pauseMs: number }>;
  /**
   * After the last byte: half-close (`socket.end()`); keep the connection open for the answers, then
   * half-close; park it (the answers, then the connection left open past the edge's timers while later
   * cases run, then half-closed); or reset it.
   */
  ending: "half-close" | "keep-open" | "park" | "reset";
}

/** What a case needs from the running server to become bytes. */
export interface RenderContext {
  /** `Cookie` header value of a signed-in session. */
  sessionCookie: string;
  apiKey: string;
  /** The console's origin (PUBLIC_ORIGIN). */
  origin: string;
  bodyLimitBytes: number;
}

/** Above it, node answers 431 (its default `maxHeaderSize`, the contract's 16 KiB). */
export const MAX_HEADER_BYTES = 16 * 1024;
/** The longest a slow writer may pause in one case. */
export const MAX_PAUSES_MS = 600;

// ---------------------------------------------------------------------------------------------------
// Arbitraries

interface Schema {
  type?: string;
  enum?: unknown[];
  example?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}
interface Parameter {
  in: string;
  name: string;
  schema?: Schema;
}
interface Operation {
  summary?: string;
  parameters?: Parameter[];
  requestBody?: unknown;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation | Parameter[]>>;
}

const DOC_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** A value for a parameter: what its schema allows (enum, example, pattern, range) or any string. */
function parameterValue(schema: Schema = {}): fc.Arbitrary<string> {
  const options: fc.Arbitrary<string>[] = [fc.string({ maxLength: 24 })];
  if (schema.enum?.length) options.push(fc.constantFrom(...schema.enum.map(String)));
  if (schema.example !== undefined) options.push(fc.constant(String(schema.example)));
  if (schema.pattern) {
    const max = schema.maxLength ?? 200;
    options.push(fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= max));
  }
  if (schema.type === "integer" || schema.type === "number") options.push(fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 1000, 100_000) }).map(String));
  // Mostly valid values, so requests get past validation into the handlers.
  return fc.oneof(...options.slice(1).map((arbitrary) => ({ weight: 3, arbitrary })), { weight: 1, arbitrary: options[0]! });
}

function operationRoute(path: string, method: string, operation: Operation, shared: Parameter[]): fc.Arbitrary<Route> {
  const parameters = [...shared, ...(operation.parameters ?? [])];
  const inPath = parameters.filter((p) => p.in === "path");
  const inQuery = parameters.filter((p) => p.in === "query");
  const query = fc.subarray(inQuery, { maxLength: Math.min(inQuery.length, 3) }).chain((chosen) => fc.tuple(...chosen.map((p) => parameterValue(p.schema).map((v) => `${encodeURIComponent(p.name)}=${encodeURIComponent(v)}`))));
  return fc.record({ values: fc.tuple(...inPath.map((p) => parameterValue(p.schema))), query }).map(({ values, query: pairs }) => {
    const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[inPath.findIndex((p) => p.name === name)] ?? ""));
    return { method, target: pairs.length ? `${filled}?${pairs.join("&")}` : filled, takesJson: Boolean(operation.requestBody), label: `${method} ${path}` };
  });
}

/** The tRPC procedures behind the document's REST bindings: "POST /contact (tRPC procedure contact.submit)". */
export function proceduresOf(doc: OpenApiDocument): Array<{ name: string; query: boolean }> {
  const found = new Map<string, boolean>();
  for (const operations of Object.values(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = /\(tRPC procedure ([\w.]+)\)/.exec((operation as Operation).summary ?? "")?.[1];
      if (name) found.set(name, method === "get");
    }
  }
  return [...found].map(([name, query]) => ({ name, query }));
}

function trpcRoute(procedures: Array<{ name: string; query: boolean }>, options: { withBody: boolean }): fc.Arbitrary<Route> {
  const callable = options.withBody ? procedures.filter((p) => !p.query) : [...procedures, { name: "no.such.procedure", query: false }];
  const named = fc.constantFrom(...callable);
  const single = fc.record({ procedure: named, input: fc.option(fc.json({ maxDepth: 2 }), { nil: undefined }) }).map(({ procedure, input }) => ({
    method: procedure.query ? "GET" : "POST",
    target: `/trpc/${procedure.name}${procedure.query && input !== undefined ? `?input=${encodeURIComponent(input)}` : ""}`,
    takesJson: !procedure.query,
    label: `tRPC ${procedure.name}`,
  }));
  // Up to 24 calls: past the 20 a batch may carry (http/trpc-handler.ts MAX_BATCH_CALLS).
  const batch = fc.array(named, { minLength: 2, maxLength: 24 }).map((calls) => {
    const query = calls.every((c) => c.query);
    return { method: query ? "GET" : "POST", target: `/trpc/${calls.map((c) => c.name).join(",")}?batch=1`, takesJson: !query, label: `tRPC batch of ${calls.length}` };
  });
  return fc.oneof(single, batch);
}

const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,16}$/);
const staticRoute: fc.Arbitrary<Route> = fc
  .oneof(
    fc.constantFrom("/", "/app", "/app/", "/docs", "/healthz", "/readyz", "/login", "/app/favicon.svg"),
    segment.map((s) => `/app/${s}`),
    segment.map((s) => `/app/assets/${s}.js`),
  )
  .map((path) => ({ method: "GET", target: path, takesJson: false, label: `GET ${path.startsWith("/app/") ? "/app/…" : path}` }));

/** Request targets a parser or a router may trip on. */
const oddRoute: fc.Arbitrary<Route> = fc
  .constantFrom(
    "*",
    "http://localhost:8787/healthz",
    "//healthz",
    "/healthz?%zz",
    "/%00",
    "/..%2f..%2fetc%2fpasswd",
    "/v1/../healthz",
    "/v1/countries/%E4%B8%AD",
    "/healthz#fragment",
    "/caf\u00e9",
    "/a b",
    "",
    "/v1/countries?country=CN&country=GB",
    "/trpc/",
    "/trpc/?batch=1",
  )
  .map((target) => ({ method: "GET", target, takesJson: false, label: `odd target ${JSON.stringify(target)}` }));

/**
 * Every route the fuzzer sends to, read from the server's own OpenAPI document; `withBody`: only those
 * that read a JSON body (where an unread or oversized body is left on the connection).
 */
export function routeArbitrary(doc: OpenApiDocument, options: { withBody: boolean } = { withBody: false }): fc.Arbitrary<Route> {
  const operations: fc.Arbitrary<Route>[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = (item.parameters as Parameter[] | undefined) ?? [];
    for (const [method, operation] of Object.entries(item)) {
      if (!DOC_METHODS.has(method) || (options.withBody && !(operation as Operation).requestBody)) continue;
      operations.push(operationRoute(path, method.toUpperCase(), operation as Operation, shared));
    }
  }
  const trpc = trpcRoute(proceduresOf(doc), options);
  if (options.withBody) return fc.oneof({ weight: 3, arbitrary: fc.oneof(...operations) }, { weight: 1, arbitrary: trpc });
  return fc.oneof({ weight: 12, arbitrary: fc.oneof(...operations) }, { weight: 3, arbitrary: staticRoute }, { weight: 4, arbitrary: trpc }, { weight: 1, arbitrary: oddRoute });
}

export const STANDARD_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"] as const;

function methodFor(route: Route): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(route.method) },
    { weight: 4, arbitrary: fc.constantFrom(...STANDARD_METHODS) },
    // Lower-case and unknown methods: node's parser refuses most of them (400), knows some (PROPFIND, PURGE…).
    { weight: 2, arbitrary: fc.constantFrom("get", "Post", "BREW", "PROPFIND", "M-SEARCH", "PURGE", "QUERY", "SEARCH", "PRI", "G\tET", "") },
  );
}

const version = fc.oneof(
  { weight: 14, arbitrary: fc.constant("HTTP/1.1") },
  { weight: 4, arbitrary: fc.constant("HTTP/1.0") },
  { weight: 1, arbitrary: fc.constantFrom("HTTP/0.9", "HTTP/2.0", "HTTP/1.2", "http/1.1", "HTTP/1.1 ", "HTTP/1", "HTTP/3.0") },
);

const headerQuirk: fc.Arbitrary<HeaderQuirk> = fc.oneof(
  { weight: 60, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "obs-fold" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "bare-lf" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "nul" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "bare-cr" as const }) },
  { weight: 2, arbitrary: fc.integer({ min: -300, max: 300 }).map((delta) => ({ kind: "near-limit" as const, delta })) },
  { weight: 1, arbitrary: fc.integer({ min: 30, max: 400 }).map((count) => ({ kind: "many" as const, count })) },
  { weight: 1, arbitrary: fc.constant({ kind: "space-before-colon" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "no-colon" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "latin1" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "empty-name" as const }) },
);

const headerName = fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/);
const headerValue = fc.stringMatching(/^[ -~]{0,40}$/).map((v) => v.trim());
const extraHeaders = fc.array(
  fc.oneof(
    fc.tuple(headerName, headerValue),
    fc.constantFrom<[string, string]>(["Accept-Encoding", "gzip, br"], ["If-None-Match", '"x"'], ["Upgrade", "websocket"], ["Cookie", "ir21_session=ses_forged.secret"], ["X-Forwarded-For", "203.0.113.9"], ["Sec-Fetch-Site", "cross-site"], ["Accept", "text/html"]),
  ),
  { maxLength: 3 },
);

function bodyFor(limit: number): fc.Arbitrary<BodySpec> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.json({ maxDepth: 3 }).map((text) => ({ kind: "json" as const, text })) },
    // Sizes around the body limit and past it (up to three times): the 413 paths, chunked or not.
    {
      weight: 4,
      arbitrary: fc
        .oneof({ weight: 2, arbitrary: fc.integer({ min: 0, max: 4096 }) }, { weight: 2, arbitrary: fc.integer({ min: limit - 64, max: limit + 64 }) }, { weight: 3, arbitrary: fc.integer({ min: limit + 1, max: limit * 3 }) })
        .map((size) => ({ kind: "padded" as const, size })),
    },
    { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }).map((bytes) => ({ kind: "bytes" as const, bytes })) },
  );
}

const lengthFraming: fc.Arbitrary<Framing> = fc.record({
  kind: fc.constant("length" as const),
  lie: fc.oneof(
    { weight: 20, arbitrary: fc.constant<LengthLie>("exact") },
    { weight: 1, arbitrary: fc.constantFrom<LengthLie>("short", "long", "duplicate", "conflicting", "list", "not-a-number", "negative", "plus", "huge") },
  ),
  by: fc.integer({ min: 1, max: 64 }),
});

const chunkedFraming: fc.Arbitrary<Framing> = fc.record({
  kind: fc.constant("chunked" as const),
  te: fc.oneof(
    { weight: 24, arbitrary: fc.constant<readonly string[]>(["chunked"]) },
    { weight: 1, arbitrary: fc.constantFrom<readonly string[]>(["Chunked"], ["CHUNKED"], ["gzip, chunked"], ["chunked, gzip"], ["identity"], [" chunked"], ["chunked", "chunked"], ["gzip", "chunked"], ["chunked;q=1"]) },
  ),
  alsoLength: fc.oneof({ weight: 16, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom("exact" as const, "zero" as const) }),
  splits: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
  size: fc.oneof({ weight: 20, arbitrary: fc.constantFrom<ChunkSize>("lower", "upper", "zero-padded") }, { weight: 2, arbitrary: fc.constantFrom<ChunkSize>("smaller", "larger", "garbage") }),
  garbage: fc.constantFrom("zz", "-1", "0x10", " 10", "10 ", "1_0", "fffffffffffffffffff", "+5", ""),
  extension: fc.oneof(
    { weight: 8, arbitrary: fc.constant("") },
    { weight: 2, arbitrary: fc.constantFrom(";a", ";a=b", ';name="quoted value"', ";a=b;c=d", "; spaced") },
    // Past node's limit on extensions (16 KiB per message): 413.
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((n) => `;${"e".repeat(n)}`) },
  ),
  end: fc.oneof({ weight: 12, arbitrary: fc.constant<ChunkEnd>("final") }, { weight: 4, arbitrary: fc.constantFrom<ChunkEnd>("final-ext", "trailers") }, { weight: 3, arbitrary: fc.constantFrom<ChunkEnd>("no-final-crlf", "missing", "bad-trailer") }),
});

/**
 * A request to `route`. `aimed`: at the body paths, where issue 31's crash was: the route's own
 * method, the console's Origin, a body around the limit or past it, framed by Content-Length or
 * chunked (whose sizes, extensions and ends are still fuzzed).
 */
function requestFor(route: Route, limit: number, aimed: boolean): fc.Arbitrary<RequestSpec> {
  const wantsBody = route.takesJson;
  const aroundTheLimit = fc.oneof(fc.integer({ min: limit - 64, max: limit + 64 }), fc.integer({ min: limit + 1, max: limit * 3 })).map((size) => ({ kind: "padded" as const, size }));
  return fc.record({
    route: fc.constant(route),
    method: aimed ? fc.constant(route.method) : methodFor(route),
    version,
    host: fc.oneof({ weight: 20, arbitrary: fc.constant("normal" as const) }, { weight: 1, arbitrary: fc.constantFrom("missing" as const, "empty" as const, "duplicate" as const) }),
    connection: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: fc.constant("keep-alive") }, { weight: 2, arbitrary: fc.constant("close") }, { weight: 1, arbitrary: fc.constantFrom("Keep-Alive", "upgrade", "close, keep-alive", "TE") }),
    contentType: fc.oneof({ weight: 8, arbitrary: fc.constant("application/json") }, { weight: 1, arbitrary: fc.constantFrom(null, "text/plain", "application/json; charset=latin1", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x") }),
    expect: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: fc.constant("100-continue") }, { weight: 1, arbitrary: fc.constantFrom("100-Continue", "200-ok", "nothing") }),
    origin: aimed ? fc.constant("same" as const) : fc.constantFrom(null, "same" as const, "same" as const, "cross" as const),
    extraHeaders,
    quirk: headerQuirk,
    body: aimed ? aroundTheLimit : fc.oneof({ weight: wantsBody ? 2 : 6, arbitrary: fc.constant({ kind: "none" as const }) }, { weight: wantsBody ? 8 : 2, arbitrary: bodyFor(limit) }),
    framing: aimed
      ? fc.oneof({ weight: 1, arbitrary: lengthFraming }, { weight: 3, arbitrary: chunkedFraming })
      : fc.oneof({ weight: 1, arbitrary: fc.constant({ kind: "none" as const }) }, { weight: 4, arbitrary: lengthFraming }, { weight: 5, arbitrary: chunkedFraming }),
  });
}

/**
 * One case: a connection's worth of requests, how they are written and how the client ends.
 * @example
 * fc.check(fc.asyncProperty(caseArbitrary(doc, 65536), async (c) => { ... }), { seed: 42 });
 */
export function caseArbitrary(doc: OpenApiDocument, bodyLimitBytes: number): fc.Arbitrary<Case> {
  const request = routeArbitrary(doc).chain((route) => requestFor(route, bodyLimitBytes, false));
  const aimed = routeArbitrary(doc, { withBody: true }).chain((route) => requestFor(route, bodyLimitBytes, true));
  return fc.record({
    requests: fc.oneof(
      { weight: 9, arbitrary: fc.array(request, { minLength: 1, maxLength: 1 }) },
      { weight: 3, arbitrary: fc.array(request, { minLength: 2, maxLength: 3 }) },
      // A fifth of the cases: a body to a route that reads it, maybe with more requests behind it.
      { weight: 3, arbitrary: fc.tuple(aimed, fc.array(request, { maxLength: 2 })).map(([first, rest]) => [first, ...rest]) },
    ),
    credentials: fc.constantFrom("none" as const, "none" as const, "session" as const, "session" as const, "api-key" as const, "bogus" as const),
    cut: fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.double({ min: 0.01, max: 0.99, noNaN: true }) }),
    writes: fc.oneof(
      { weight: 8, arbitrary: fc.constant<Case["writes"]>([]) },
      { weight: 1, arbitrary: fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), pauseMs: fc.integer({ min: 0, max: Math.floor(MAX_PAUSES_MS / 6) }) }), { minLength: 1, maxLength: 6 }) },
    ),
    ending: fc.oneof(
      { weight: 4, arbitrary: fc.constant("keep-open" as const) },
      { weight: 3, arbitrary: fc.constant("half-close" as const) },
      { weight: 3, arbitrary: fc.constant("park" as const) },
      { weight: 1, arbitrary: fc.constant("reset" as const) },
    ),
  });
}

// ---------------------------------------------------------------------------------------------------
// Rendering

export interface Rendered {
  /** Everything the case sends, in order, with the pause after each piece. */
  pieces: Array<{ bytes: Buffer; pauseMs: number }>;
  /** The whole message stream (uncut). */
  bytes: Buffer;
  /** Each request's method as sent: a HEAD's answer has no body. */
  methods: string[];
  /**
   * How many final answers a well-behaved server owes this case before it may close, when every
   * request is well-formed, nothing is cut and the client waits; null when that depends on how the
   * server reads malformed input (then any answers are checked, but not counted).
   */
  expectedAnswers: number | null;
}

const CLEAN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]);

function bodyBytes(body: BodySpec): Buffer {
  switch (body.kind) {
    case "none":
      return Buffer.alloc(0);
    case "json":
      return Buffer.from(body.text);
    case "bytes":
      return Buffer.from(body.bytes);
    case "padded": {
      // Valid JSON of exactly `size` bytes where it fits, so a body under the limit reaches the handler.
      const shell = '{"message":""}';
      return body.size < shell.length ? Buffer.alloc(body.size, "a") : Buffer.from(`{"message":"${"a".repeat(body.size - shell.length)}"}`);
    }
  }
}

function chunkSizeText(length: number, style: ChunkSize, garbage: string, first: boolean): string {
  switch (style) {
    case "lower":
      return length.toString(16);
    case "upper":
      return length.toString(16).toUpperCase();
    case "zero-padded":
      return `000${length.toString(16)}`;
    case "smaller":
      return Math.max(length - 1, 1).toString(16);
    case "larger":
      return (length + 3).toString(16);
    case "garbage":
      return first ? garbage : length.toString(16);
  }
}

const CHUNK_ENDS: Record<ChunkEnd, string> = {
  final: "0\r\n\r\n",
  "final-ext": "0;done=1\r\n\r\n",
  trailers: "0\r\nX-Checksum: 0123\r\n\r\n",
  "no-final-crlf": "0\r\n",
  missing: "",
  "bad-trailer": "0\r\nnot a trailer\r\n\r\n",
};

function chunked(body: Buffer, framing: Extract<Framing, { kind: "chunked" }>): Buffer {
  const cuts = [...new Set(framing.splits.map((f) => Math.floor(f * body.length)))].filter((n) => n > 0 && n < body.length).sort((a, b) => a - b);
  const bounds = [0, ...cuts, body.length];
  const parts: Buffer[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const data = body.subarray(bounds[i], bounds[i + 1]);
    if (data.length === 0) continue; // a zero-size chunk would end the body
    parts.push(Buffer.from(`${chunkSizeText(data.length, framing.size, framing.garbage, i === 0)}${framing.extension}\r\n`, "latin1"), data, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(CHUNK_ENDS[framing.end]));
  return Buffer.concat(parts);
}

function contentLengthLines(lie: LengthLie, length: number, by: number): string[] {
  switch (lie) {
    case "exact":
      return [`Content-Length: ${length}`];
    case "short":
      return [`Content-Length: ${Math.max(length - by, 0)}`];
    case "long":
      return [`Content-Length: ${length + by}`];
    case "duplicate":
      return [`Content-Length: ${length}`, `Content-Length: ${length}`];
    case "conflicting":
      return [`Content-Length: ${length}`, `Content-Length: ${length + by}`];
    case "list":
      return [`Content-Length: ${length}, ${length}`];
    case "not-a-number":
      return ["Content-Length: abc"];
    case "negative":
      return [`Content-Length: -${by}`];
    case "plus":
      return [`Content-Length: +${length}`];
    case "huge":
      return [`Content-Length: ${64 * 1024 * 1024 + by}`];
  }
}

/** Well-formed as far as HTTP/1.1 framing goes: the server must answer it. */
function isClean(request: RequestSpec, route: Route): boolean {
  const framing = request.framing;
  const cleanFraming =
    framing.kind === "none"
      ? request.body.kind === "none"
      : framing.kind === "length"
        ? framing.lie === "exact" || framing.lie === "duplicate"
        : request.version === "HTTP/1.1" &&
          framing.te.length === 1 &&
          framing.te[0] === "chunked" &&
          framing.alsoLength === null &&
          ["lower", "upper", "zero-padded"].includes(framing.size) &&
          framing.extension.length <= 100 &&
          ["final", "final-ext", "trailers"].includes(framing.end);
  return (
    CLEAN_METHODS.has(request.method) &&
    (request.version === "HTTP/1.1" || request.version === "HTTP/1.0") &&
    (request.host === "normal" || (request.host === "missing" && request.version === "HTTP/1.0")) &&
    request.quirk.kind === "none" &&
    !route.label.startsWith("odd target") &&
    cleanFraming
  );
}

/** The request ends the connection after its answer (`Connection: close`, or HTTP/1.0 without keep-alive). */
function closesAfter(request: RequestSpec): boolean {
  const connection = request.connection?.toLowerCase() ?? "";
  return connection.split(",").some((t) => t.trim() === "close") || (request.version === "HTTP/1.0" && !connection.includes("keep-alive"));
}

function renderRequest(request: RequestSpec, credentials: Case["credentials"], context: RenderContext): Buffer {
  const { route, quirk } = request;
  const body = bodyBytes(request.body);
  const target = request.method === "CONNECT" && route.label.startsWith("odd") ? "localhost:8787" : route.target;
  const lines: string[] = [`${request.method} ${target} ${request.version}`];
  if (request.host === "normal") lines.push("Host: localhost:8787");
  if (request.host === "empty") lines.push("Host:");
  if (request.host === "duplicate") lines.push("Host: localhost:8787", "Host: evil.example");
  if (request.connection !== null) lines.push(`Connection: ${request.connection}`);
  if (request.body.kind !== "none" && request.contentType !== null) lines.push(`Content-Type: ${request.contentType}`);
  if (request.expect !== null) lines.push(`Expect: ${request.expect}`);
  if (request.origin === "same") lines.push(`Origin: ${context.origin}`);
  if (request.origin === "cross") lines.push("Origin: https://evil.example");
  // The test's own session never goes to logout: it would end the session the later cases use.
  const logout = /logout/i.test(route.target);
  if (credentials === "session" && !logout) lines.push(`Cookie: ${context.sessionCookie}`);
  if (credentials === "api-key") lines.push(`X-API-Key: ${context.apiKey}`);
  if (credentials === "bogus") lines.push("X-API-Key: ir21_live_forged0000000000000000", "Cookie: ir21_session=ses_forged.0000");
  for (const [name, value] of request.extraHeaders) lines.push(`${name}: ${value}`);

  let payload = body;
  const framing = request.framing;
  if (framing.kind === "length") lines.push(...contentLengthLines(framing.lie, body.length, framing.by));
  if (framing.kind === "chunked") {
    payload = chunked(body, framing);
    for (const te of framing.te) lines.push(`Transfer-Encoding: ${te}`);
    if (framing.alsoLength === "exact") lines.push(`Content-Length: ${payload.length}`);
    if (framing.alsoLength === "zero") lines.push("Content-Length: 0");
  }

  let eol = "\r\n";
  switch (quirk.kind) {
    case "obs-fold":
      lines.push("X-Folded: first part", "\tcontinued on the next line");
      break;
    case "bare-lf":
      eol = "\n";
      break;
    case "nul":
      lines.push("X-Nul: before\0after");
      break;
    case "bare-cr":
      lines.push("X-Cr: before\rafter");
      break;
    case "near-limit": {
      const head = Buffer.byteLength(lines.join("\r\n"), "latin1") + 4;
      const filler = Math.max(MAX_HEADER_BYTES - head - "X-Filler: \r\n".length + quirk.delta, 0);
      lines.push(`X-Filler: ${"f".repeat(filler)}`);
      break;
    }
    case "many":
      for (let i = 0; i < quirk.count; i++) lines.push(`X-Many-${i}: ${i}`);
      break;
    case "space-before-colon":
      lines.push("X-Spaced : value");
      break;
    case "no-colon":
      lines.push("X-No-Colon-Here");
      break;
    case "latin1":
      lines.push("X-Latin1: caf\u00e9 cr\u00e8me");
      break;
    case "empty-name":
      lines.push(": no name");
      break;
  }
  return Buffer.concat([Buffer.from(lines.join(eol) + eol + eol, "latin1"), payload]);
}

/**
 * The bytes of a case, in the pieces its writer sends them.
 * @example
 * const { pieces } = render(someCase, context);
 */
export function render(c: Case, context: RenderContext): Rendered {
  const requests = c.requests.map((r) => renderRequest(r, c.credentials, context));
  const bytes = Buffer.concat(requests);
  const sent = c.cut === null ? bytes : bytes.subarray(0, Math.floor(bytes.length * c.cut));
  const cuts = [...new Set(c.writes.map((w) => Math.floor(w.at * sent.length)))].filter((n) => n > 0 && n < sent.length).sort((a, b) => a - b);
  const bounds = [0, ...cuts, sent.length];
  const pieces = bounds.slice(1).map((end, i) => ({ bytes: sent.subarray(bounds[i], end), pauseMs: c.writes[i]?.pauseMs ?? 0 }));

  let expectedAnswers: number | null = null;
  if (c.cut === null && (c.ending === "keep-open" || c.ending === "park") && c.requests.every((r) => isClean(r, r.route))) {
    const closing = c.requests.findIndex(closesAfter);
    expectedAnswers = closing === -1 ? c.requests.length : closing + 1;
  }
  return { pieces, bytes, methods: c.requests.map((r) => r.method), expectedAnswers };
}

/** A short account of a case for a failure message: each request's line and framing, then the bytes' start. */
export function describeCase(c: Case, rendered: Rendered): string {
  const requests = c.requests.map((r, i) => {
    const f = r.framing;
    const framing =
      f.kind === "none"
        ? "no framing headers"
        : f.kind === "length"
          ? `Content-Length (${f.lie})`
          : `chunked [TE ${JSON.stringify(f.te)}${f.alsoLength ? ` + Content-Length ${f.alsoLength}` : ""}, sizes ${f.size}${f.size === "garbage" ? ` ${JSON.stringify(f.garbage)}` : ""}, extension of ${f.extension.length} bytes, end ${f.end}]`;
    const body = r.body.kind === "none" ? "no body" : r.body.kind === "padded" ? `${r.body.size}-byte body` : `${r.body.kind} body`;
    return `  ${i + 1}. ${JSON.stringify(r.method)} ${r.route.label} ${JSON.stringify(r.version)}, ${body}, ${framing}, quirk ${r.quirk.kind}${r.expect ? `, Expect ${r.expect}` : ""}${r.connection ? `, Connection ${r.connection}` : ""}, host ${r.host}`;
  });
  const sent = c.cut === null ? rendered.bytes.length : Math.floor(rendered.bytes.length * c.cut);
  const preview = JSON.stringify(rendered.bytes.subarray(0, 700).toString("latin1"));
  return [
    `credentials ${c.credentials}; ${sent} of ${rendered.bytes.length} bytes sent in ${rendered.pieces.length} piece(s); then ${c.ending}`,
    ...requests,
    `  bytes: ${preview}${rendered.bytes.length > 700 ? ` … (${rendered.bytes.length} bytes)` : ""}`,
  ].join("\n");
}
