import type { H3Event } from "h3";
import type { DatasetMeta, Envelope } from "../contract/envelope.ts";
import { requestIdOf } from "./request-id.ts";

/**
 * Wraps an endpoint's data in the success envelope; meta names the request and the dataset version
 * that was current when it was answered.
 * @example
 * return envelope(event, deps.datasetMeta, { items });
 */
export async function envelope<T>(event: H3Event, versions: { current(): Promise<DatasetMeta> }, data: T): Promise<Envelope<T>> {
  return { code: 0, data, meta: { request_id: requestIdOf(event), ...(await versions.current()) } };
}
