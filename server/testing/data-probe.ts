import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { getQuery, toNodeHandler } from "h3";
import { AppError } from "../src/errors.ts";
import { createApp } from "../src/app/http-app.ts";
import { envelope } from "../src/http/envelope.ts";
import { meteredQuery } from "../src/data-api/metered.ts";
import type { TestServer } from "./server.ts";

export interface DataProbe {
  url: string;
  /** fetch() against the probe server, relative to its URL. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A second HTTP server over the same dependencies (database, shared store, clock) as `server`, with
 * the whole app plus one metered data route, `GET /v1/probe`, that behaves like a /v1 query: access,
 * rate limit and quota through `meteredQuery`, usage reported as endpoint "GET /v1/probe". Query
 * `?status=404` makes it fail (a business failure), `?status=304` answers Not Modified, `?cost=n` charges n units, `?delay_ms=n` makes the
 * query take n ms (requests in flight at once). `GET /v1/probe/bare`
 * answers the same without any access check or metering (the baseline of the metering benchmark).
 * For tests of metering that must not depend on the catalogue's routes.
 * @example
 * const probe = await startDataProbe(server);
 * const response = await probe.fetch("/v1/probe", { headers: { "x-api-key": key } });
 */
export async function startDataProbe(server: Pick<TestServer, "deps">): Promise<DataProbe> {
  const deps = server.deps;
  const app = createApp(deps);
  app.get("/v1/probe/bare", (event) => envelope(event, deps.datasetMeta, { access: "none" }));
  app.get("/v1/probe", (event) => {
    const query = getQuery(event);
    return meteredQuery(
      event,
      deps,
      "GET /v1/probe",
      async (access) => {
        if (query.delay_ms) await new Promise((resolve) => setTimeout(resolve, Number(query.delay_ms)));
        if (query.status === "404") throw new AppError("NOT_FOUND", "No such number range");
        if (query.status === "304") return new Response(null, { status: 304 });
        return envelope(event, deps.datasetMeta, { access: access.kind });
      },
      { cost: query.cost ? Number(query.cost) : 1 },
    );
  });
  const http = createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    fetch: (path, init) => fetch(new URL(path, url), init),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
