/**
 * GET /v1/openapi.json                           public, not metered, no dataset needed
 *
 * The OpenAPI 3.1 document of the whole HTTP API: every /v1 data route and every frozen REST path of
 * the console, auth and contact (http/rest-bindings.ts), generated from the zod schemas the server
 * validates with: route definitions here, the procedures' input and output parsers there. A new
 * binding or route appears without editing this file; a snapshot test guards the result.
 *
 * 200 application/json (OpenAPI 3.1)
 */
import { z } from "zod";
import { EnvelopeMeta, ErrorBody } from "../../contract/envelope.ts";
import { ERROR_CODES } from "../../contract/errors.ts";
import { REST_BINDINGS, type RestBinding } from "../../http/rest-bindings.ts";
import { appRouter } from "../../router.ts";
import { LISTEN_STREAM_PATH } from "../../webhooks/listen/open-stream.ts";
import { ZOpenStreamQuery } from "../../webhooks/listen/open-stream.types.ts";
import { defineRoute, type DataRoute, type FileOutput, type JsonOutput } from "./route.ts";

type Json = Record<string, unknown>;
type Io = "input" | "output";

/** Collects named schemas (zod `.meta({id})`) as components and rewrites their references. */
class Components {
  readonly schemas: Record<string, Json> = {};

  convert(schema: z.ZodType, io: Io): Json {
    const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12", reused: "inline", cycles: "ref" }) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    const rename = (id: string) => (io === "input" && !id.endsWith("Input") ? `${id}Input` : id);
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (node && typeof node === "object") {
        const out: Json = {};
        for (const [key, value] of Object.entries(node)) {
          if (key === "$defs" || key === "$schema") continue;
          out[key] = key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/") ? `#/components/schemas/${rename(value.slice(8))}` : rewrite(value);
        }
        return out;
      }
      return node;
    };
    for (const [id, def] of Object.entries(defs)) this.schemas[rename(id)] = rewrite(def) as Json;
    // The top-level schema itself may carry an id: then it is a component and we reference it.
    const top = rewrite(json) as Json;
    const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
    if (id) {
      this.schemas[rename(id)] = top;
      return { $ref: `#/components/schemas/${rename(id)}` };
    }
    return top;
  }
}

function parametersOf(components: Components, schema: z.ZodType | undefined, where: "query" | "path"): Json[] {
  if (!schema) return [];
  const json = components.convert(schema, "input");
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || required.has(name),
    ...(typeof property.description === "string" ? { description: property.description } : {}),
    schema: property,
  }));
}

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } } });

function errorResponses(statuses: number[]): Json {
  const byStatus = new Map<number, string[]>();
  for (const [code, { status }] of Object.entries(ERROR_CODES)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  return Object.fromEntries(statuses.map((s) => [String(s), errorResponse(`Error: ${(byStatus.get(s) ?? []).join(", ")}`)]));
}

function envelope(data: Json): Json {
  return {
    type: "object",
    properties: { code: { type: "integer", const: 0 }, data, meta: { $ref: "#/components/schemas/EnvelopeMeta" } },
    required: ["code", "data", "meta"],
  };
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
const operationId = (method: string, path: string) =>
  method.toLowerCase() +
  path
    .split(/[/.-]/)
    .filter(Boolean)
    .map((part) => (part.startsWith(":") ? `By${part[1]!.toUpperCase()}${part.slice(2)}` : part[0]!.toUpperCase() + part.slice(1)))
    .join("");

function dataOperation(components: Components, route: DataRoute): Json {
  const responses: Json = {};
  if ("file" in route.output) {
    const file = (route.output as FileOutput).file;
    responses["200"] = {
      description: file.description,
      headers: { ETag: { schema: { type: "string" } }, "Content-Disposition": { schema: { type: "string" } } },
      content: Object.fromEntries(file.contentTypes.map((t) => [t, { schema: { type: "string" } }])),
    };
    responses["304"] = { description: "Not modified: If-None-Match names the current version's ETag" };
  } else {
    const output = route.output as JsonOutput;
    const full = components.convert(output.full, "output");
    const data = output.public && output.public !== output.full ? { oneOf: [full, components.convert(output.public, "output")] } : full;
    responses["200"] = {
      description: output.public && output.public !== output.full ? "Full projection with an API key or session; public projection (second schema) for anonymous callers" : "Success",
      content: { "application/json": { schema: envelope(data) } },
    };
  }
  const statuses = route.unmetered ? [] : [400, 401, ...(route.path.includes(":") ? [404] : []), 429, 503];
  Object.assign(responses, errorResponses(statuses));
  return {
    operationId: operationId(route.method, route.path),
    tags: ["data"],
    summary: route.summary,
    description: route.description + (route.cost ? " Quota: see the description for the cost." : ""),
    security: route.access === "public" ? [{}, { apiKey: [] }, { session: [] }] : [{ apiKey: [] }, { session: [] }],
    parameters: [...parametersOf(components, route.input.params, "path"), ...parametersOf(components, route.input.query, "query")],
    ...(route.input.body ? { requestBody: { required: true, content: { "application/json": { schema: components.convert(route.input.body, "input") } } } } : {}),
    responses,
  };
}

interface ProcedureDef {
  inputs: z.ZodType[];
  output?: z.ZodType;
  type: string;
}

function bindingOperation(components: Components, binding: RestBinding): Json {
  const def = (appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>)[binding.procedure]!._def;
  const input = def.inputs[0];
  const pathNames = [...binding.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  const sources = binding.input ?? (binding.method === "GET" ? ["query", "params"] : ["body", "params"]);
  const json = input ? components.convert(input, "input") : {};
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  // Path parameters take their schema from the procedure's input; the rest is query or body.
  const parameters: Json[] = pathNames.map((name) => ({ name, in: "path", required: true, schema: properties[name] ?? { type: "string" } }));
  const rest = Object.entries(properties).filter(([name]) => !pathNames.includes(name));
  let requestBody: Json | undefined;
  if (sources.includes("query")) {
    for (const [name, schema] of rest) parameters.push({ name, in: "query", required: required.has(name), schema });
  } else if (sources.includes("body") && (rest.length > 0 || !json.properties)) {
    const body = json.properties
      ? { ...json, properties: Object.fromEntries(rest), required: [...required].filter((name) => !pathNames.includes(name)) }
      : json;
    requestBody = { required: json.properties ? rest.some(([name]) => required.has(name)) : true, content: { "application/json": { schema: body } } };
  }
  const tag = binding.path.split("/")[1]!;
  const session = tag === "console" || binding.path === "/auth/logout" || binding.path === "/auth/me";
  return {
    operationId: `${binding.method.toLowerCase()}_${binding.procedure.replace(/\./g, "_")}`,
    tags: [tag],
    summary: `${binding.method} ${binding.path} (tRPC procedure ${binding.procedure})`,
    security: session ? [{ session: [] }] : [{}],
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      "200": { description: "Success", content: { "application/json": { schema: envelope(def.output ? components.convert(def.output, "output") : {}) } } },
      ...errorResponses([400, ...(session ? [401, 403] : []), ...(pathNames.length ? [404] : []), ...(binding.method === "GET" ? [] : [415]), 429, 503]),
    },
  };
}

/** The listen stream (webhooks/listen/open-stream.ts): an h3 route answering server-sent events. */
function listenStreamOperation(components: Components): Json {
  return {
    operationId: "get_webhooks_listen_stream",
    tags: ["console"],
    summary: "GET /console/listen-sessions/stream (server-sent events: ready, delivery, end; see docs/webhooks.md \"Listen sessions\")",
    security: [{ session: [] }],
    parameters: parametersOf(components, ZOpenStreamQuery, "query"),
    responses: {
      "200": { description: "text/event-stream: `ready` {session, secret, resumed, ping_interval_seconds, buffer}, then `delivery` {delivery_id, session_id, event_id, event_type, attempt, headers, body}, `end` {reason, message}, and `: ping` comments", content: { "text/event-stream": { schema: { type: "string" } } } },
      ...errorResponses([400, 401, 403, 404, 409, 429, 503]),
    },
  };
}

/** The whole document; built once per process (the schemas do not change at run time). */
export function buildOpenApiDocument(routes: readonly DataRoute[]): Json {
  const components = new Components();
  components.convert(ErrorBody, "output");
  components.convert(EnvelopeMeta, "output");
  const paths: Record<string, Json> = {};
  const add = (path: string, method: string, operation: Json) => {
    paths[toOpenApiPath(path)] = { ...(paths[toOpenApiPath(path)] ?? {}), [method.toLowerCase()]: operation };
  };
  for (const route of routes) add(route.path, route.method, dataOperation(components, route));
  for (const binding of REST_BINDINGS) add(binding.path, binding.method, bindingOperation(components, binding));
  add(LISTEN_STREAM_PATH, "GET", listenStreamOperation(components));
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  const sortedSchemas = Object.fromEntries(Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: "3.1.0",
    info: {
      title: "ir21 communications data service",
      version: "v1",
      description:
        "Catalogue of mobile-network data (number ranges, operators, networks, capabilities) with a versioned change log, and the console/auth API. Every JSON success is the envelope {code: 0, data, meta}; every error is {code, message, request_id}. See docs/api.md.",
      license: { name: "API: MIT; data: the licence of each source (see /v1/meta)" },
    },
    servers: [{ url: "/" }],
    tags: [
      { name: "data", description: "Catalogue data API (/v1)" },
      { name: "auth", description: "Sign-in by SMS code" },
      { name: "console", description: "Account console (session required)" },
      { name: "contact", description: "Enterprise inquiries" },
    ],
    paths: sortedPaths,
    components: {
      schemas: sortedSchemas,
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        session: { type: "apiKey", in: "cookie", name: "__Host-ir21_session", description: "The console's session cookie (ir21_session over plain http in development)" },
      },
    },
  };
}

let cached: Json | null = null;

export const openApiRoute = defineRoute({
  method: "GET",
  path: "/v1/openapi.json",
  summary: "This OpenAPI 3.1 document",
  description: "The OpenAPI 3.1 document of the data API and the console/auth REST paths, generated from the server's schemas.",
  access: "public",
  unmetered: true,
  input: {},
  output: { file: { contentTypes: ["application/json"], description: "OpenAPI 3.1 document" } },
  async handle() {
    // Imported lazily: the registry imports this file.
    const { DATA_ROUTES } = await import("./index.ts");
    cached ??= buildOpenApiDocument(DATA_ROUTES);
    return new Response(JSON.stringify(cached), { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" } });
  },
});
