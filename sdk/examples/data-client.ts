// Query the catalogue with an API key: lookups, lists, and a CSV export streamed to a file.
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createClient, isIr21ApiError } from "@ir21/sdk";

const ir21 = createClient({ baseUrl: process.env.IR21_BASE_URL ?? "http://localhost:8787", apiKey: process.env.IR21_API_KEY!, retry: true });

// A phone number: range_holder is the ORIGINAL holder of the range (numbers are ported).
const { data: number, meta } = await ir21.lookup("+8613912345678");
console.log(number.range_holder, number.operator?.name, number.range?.id, `(dataset ${meta.dataset_version})`);

// Up to 100 numbers at once; one that does not parse comes back with an error, the rest still answer.
const { data: batch } = await ir21.lookupBatch(["+8613812345678", "+447700900123", "12"]);
for (const item of batch.items) console.log(item.number, "error" in item ? item.error.code : item.range_holder);

// Every Chinese network, across pages (all pages come from one dataset version).
for await (const network of ir21.networks.iterate({ country: "CN" })) console.log(network.id, network.name, network.technologies.join("/"));

// One page at a time, when you want the cursor yourself.
const page = await ir21.operators.list({ q: "mobile", limit: 20 });
console.log(page.data.items.map((o) => o.id), page.data.next_cursor);

// A CSV export to a file, with progress; re-running with the ETag costs nothing when unchanged.
try {
  const download = await ir21.exportCsv("number-ranges", {
    ifNoneMatch: process.env.LAST_ETAG,
    onProgress: ({ bytes }) => process.stderr.write(`\r${(bytes / 1024).toFixed(0)} KiB`),
  });
  if (download.notModified) console.log("unchanged since", download.etag);
  else {
    await pipeline(Readable.fromWeb(download.body as import("node:stream/web").ReadableStream), createWriteStream(download.filename ?? "number-ranges.csv"));
    console.log(`\nsaved ${download.filename}; next time pass ETag ${download.etag}`);
  }
} catch (error) {
  if (isIr21ApiError(error, "QUOTA_EXCEEDED")) console.error(`monthly quota used up; resets in ${error.retryAfter}s`);
  else throw error;
}
