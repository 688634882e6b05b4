import { readFileSync } from "node:fs";
import { leaf, oldSpellingNotice, type Ir21Command } from "../command.ts";
import { UsageError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { apiErrorOf } from "../sdk.ts";
import { readStdin } from "./shared.ts";

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
/** Methods whose --field values go in the query string (they carry no body), as gh api does. */
const QUERY_METHODS = new Set(["GET", "HEAD", "DELETE"]);

/**
 * `ir21 api`: a raw call with the profile's credentials, for what no command covers yet (gh api,
 * stripe get). The answer's body goes to stdout as it came (JSON pretty-printed); a non-2xx answer
 * also prints the error on stderr and exits 2 (3 for 401), like every other command.
 */
export function apiCommand(rt: Runtime): Ir21Command {
  return leaf({
    category: "Setup",
    summary: "Make an authenticated request to any route and print the answer",
    details: [
      "The path is relative to the server (--base-url / IR21_BASE_URL / the profile) and may carry a query.",
      "The method is GET, or POST when --data gives a body; -X/--method sets any (as gh api does).",
      "Credentials: the API key (--api-key, IR21_API_KEY or the profile's) as X-API-Key, and the profile's",
      "login as its session cookie, whichever exist. --field key=value builds a JSON body (numbers, true,",
      "false and null typed; --raw-field keeps strings as they are); for GET, HEAD and DELETE the fields go",
      "in the query string instead. --data sends a JSON body as given (@file or @- for stdin).",
      "The answer's body is printed as it came (JSON indented), with or without --json.",
    ].join("\n"),
    examples: [
      "ir21 api /v1/meta",
      "ir21 api /v1/networks --field country=CN --field limit=5",
      "ir21 api /v1/lookup/batch --data '{\"numbers\":[\"+8613912345678\"]}'",
      "ir21 api /console/usage -i",
      "ir21 api -X POST /console/api-keys --field name=ci",
      "ir21 api -X DELETE /console/api-keys/key_01jd…",
    ],
    repeatable: ["field", "raw-field", "header"],
    // 0.1 took the method first: `ir21 api GET /v1/meta`.
    oldArguments: (given) => {
      if (given.length !== 2 || !METHODS.includes(given[0]!.toUpperCase()) || !given[1]!.startsWith("/")) return null;
      const method = given[0]!.toUpperCase();
      return { given: [given[1]!], flags: [`--method=${method}`], notice: oldSpellingNotice(`\`ir21 api ${given[0]} <path>\``, `\`ir21 api <path>${method === "GET" ? "" : ` -X ${method}`}\``) };
    },
    args: {
      path: { type: "positional", required: true, description: "The route, starting with /, e.g. /v1/meta (a query may follow)" },
      method: { type: "string", alias: "X", valueHint: "method", description: `The HTTP method: ${METHODS.join(", ")} (default GET, or POST with --data)` },
      data: { type: "string", alias: "d", valueHint: "json|@file|@-", description: "The request body, JSON" },
      field: { type: "string", alias: "F", valueHint: "key=value", description: "A typed field of the body or query (repeatable)" },
      "raw-field": { type: "string", alias: "f", valueHint: "key=value", description: "A string field of the body or query (repeatable)" },
      header: { type: "string", alias: "H", valueHint: "'Name: value'", description: "An extra request header (repeatable)" },
      include: { type: "boolean", alias: "i", description: "Print the status line and the response headers before the body" },
    },
    run: async (args) => {
      const method = (args.method ?? (args.data !== undefined ? "POST" : "GET")).toUpperCase();
      if (!METHODS.includes(method)) throw new UsageError(`Unknown method "${args.method}"`, `One of ${METHODS.join(", ")}`);
      if (!args.path.startsWith("/") || args.path.startsWith("//")) throw new UsageError(`The path must start with one /, e.g. /v1/meta (got "${args.path}")`);
      const fields = [...parseFields(rt.repeated.field, "--field", typed), ...parseFields(rt.repeated["raw-field"], "--raw-field", (v) => v)];
      if (args.data !== undefined && fields.length > 0) throw new UsageError("Give the body as --data or as --field/--raw-field, not both");
      const url = new URL(rt.baseUrl().value + args.path);
      const headers = new Headers({ accept: "application/json" });
      for (const line of rt.repeated.header ?? []) {
        const colon = line.indexOf(":");
        if (colon < 1) throw new UsageError(`Not a header: "${line}"`, "Write headers as 'Name: value'.");
        headers.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      let body: string | undefined;
      if (args.data !== undefined) {
        if (QUERY_METHODS.has(method) && method !== "DELETE") throw new UsageError(`${method} takes no body: use --field for query parameters, or -X POST for a body`);
        body = await dataOf(rt, args.data);
      } else if (fields.length > 0) {
        if (QUERY_METHODS.has(method)) for (const [key, value] of fields) url.searchParams.append(key, value === null ? "" : String(value));
        else body = JSON.stringify(Object.fromEntries(fields));
      }
      if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");

      const response = await rt.rawFetch()(url.href, { method, headers, body });
      const text = method === "HEAD" ? "" : await response.text();
      let parsed: unknown;
      try {
        parsed = text === "" ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (args.include) {
        rt.out.line(`HTTP ${response.status} ${response.statusText}`.trimEnd()); // HTTP/1.1 reason phrases are optional
        response.headers.forEach((value, name) => rt.out.line(`${name}: ${value}`));
        rt.out.line();
      }
      if (parsed !== undefined) rt.out.line(JSON.stringify(parsed, null, 2));
      else if (text !== "") rt.io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
      if (!response.ok && response.status !== 304) throw apiErrorOf(response, parsed);
    },
  });
}

/** `key=value` pairs of a repeatable flag; the key must be non-empty. */
function parseFields(values: string[] | undefined, flag: string, convert: (value: string) => unknown): Array<[string, unknown]> {
  return (values ?? []).map((pair) => {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new UsageError(`${flag} takes key=value, got "${pair}"`);
    return [pair.slice(0, eq), convert(pair.slice(eq + 1))];
  });
}

/** gh api's -F typing: true, false, null and numbers become JSON values; anything else stays a string. */
function typed(value: string): unknown {
  if (value === "true") return true;
  if (value === "false") return false;
  if (value === "null") return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

/** --data: inline JSON, @file or @- (stdin); checked to be JSON before anything is sent. */
async function dataOf(rt: Runtime, data: string): Promise<string> {
  let text = data;
  if (data === "@-") text = (await readStdin(rt.io.stdin)).toString("utf8");
  else if (data.startsWith("@")) {
    try {
      text = readFileSync(data.slice(1), "utf8");
    } catch (error) {
      throw new UsageError(`Cannot read ${data.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  try {
    JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--data is not JSON: ${(error as Error).message}`);
  }
  return text;
}
