/**
 * A reference point of lookup.bench.ts: bare node:http answering `GET <path>?number=<E.164>` with
 * ir21's own number-answer work and nothing else. Per request it reads the number from the query,
 * runs the server's functions (`findNumber`: libphonenumber-js parse, type and formats, location,
 * time zones and the prefix match; `NumberAnswers.write`: the range's prebuilt fragments and the
 * number's own fields through the projection's schema) and wraps the data in the envelope with a
 * fixed request id. No credential, rate limit, quota, input schema, request id, log or version
 * header: what any server sending these answers must spend on top of bare node:http, measured as a
 * server rather than as in-process CPU (where the same work runs two to three times faster than
 * between socket reads).
 *
 * `?projection=public` gives the anonymous caller's answer. Before measuring, the bench checks that
 * the bytes equal the real server's answers to the same numbers, but for the request id.
 *
 * Run as a child with DATABASE_URL (the bench's database, on either engine) and PORT.
 */
import { createServer } from "node:http";
import { createDatasetMetaSource } from "../../server/src/catalog/model/dataset-meta.ts";
import type { Projection } from "../../server/src/data-api/route.ts";
import { LookupIndexes } from "../../server/src/catalog/lookup/lookup-index.ts";
import { findNumber } from "../../server/src/catalog/lookup/lookup.ts";
import { JSON_CONTENT_TYPE } from "../../server/src/data-api/answer.ts";
import { openDatabase } from "../../server/src/db/db.ts";
import { newId } from "../../server/src/ids.ts";
import { Utf8Builder } from "../../server/src/utf8-builder.ts";

const { db } = openDatabase(process.env.DATABASE_URL!);
const version = await createDatasetMetaSource(db).pinned();
const index = await new LookupIndexes(db).at(version.seq);
// An id of the real server's form and length, made once: making ids is the server's work, not the data's.
const requestId = newId("req");
const tail = `,"meta":{"request_id":${JSON.stringify(requestId)},${JSON.stringify(version.meta).slice(1)}}`;

createServer((req, res) => {
  const url = req.url!;
  const from = url.indexOf("number=") + "number=".length;
  const to = url.indexOf("&", from);
  const number = decodeURIComponent(to === -1 ? url.slice(from) : url.slice(from, to));
  const projection: Projection = to !== -1 && url.endsWith("&projection=public") ? "public" : "full";
  const out = new Utf8Builder().text('{"code":0,"data":');
  index.answers.write(findNumber(index, number), projection, out);
  const body = out.text(tail).toBuffer();
  res.writeHead(200, { "content-type": JSON_CONTENT_TYPE, "content-length": body.length });
  res.end(body);
}).listen(Number(process.env.PORT), "127.0.0.1");
