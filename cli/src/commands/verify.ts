import { readFileSync } from "node:fs";
import { leaf, type Ir21Command } from "../command.ts";
import { CheckFailed, UsageError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { DEFAULT_TOLERANCE_SECONDS, isWebhookVerificationError, verifyWebhook } from "../sdk.ts";
import { integer, readStdin } from "./shared.ts";

export function verifyCommand(rt: Runtime): Ir21Command {
  return leaf({
    category: "Webhooks",
    summary: "Check the signature of a saved webhook delivery (body on stdin)",
    details: [
      "Runs the receiver checks of the contract with the SDK's verifier: the headers are present, a",
      "signature (X-IR21-Signature or, during a rotation, X-IR21-Signature-Previous) is the HMAC of",
      "timestamp.body under a given secret, the timestamp is within --tolerance of now (or of --at),",
      "and the body's id equals X-IR21-Event-Id. Without the X-IR21-* headers, the Standard Webhooks ones",
      "(webhook-id, webhook-timestamp, webhook-signature) are checked the same way, with the same secret.",
      "Exit 0 when valid; exit 2 with the failed check's code",
      "(MISSING_HEADER, MALFORMED_SIGNATURE, INVALID_TIMESTAMP, TIMESTAMP_OUT_OF_TOLERANCE,",
      "SIGNATURE_MISMATCH, MALFORMED_BODY, EVENT_ID_MISMATCH).",
      "The body is read from stdin (or --body-file) byte for byte: save it unmodified.",
      "Secrets: --secret (repeatable: new and old during a rotation) or $IR21_WEBHOOK_SECRET.",
    ].join("\n"),
    examples: [
      "ir21 verify --secret \"$SECRET\" --header 'X-IR21-Event-Id: evt_…' --header 'X-IR21-Timestamp: 1795000000' --header 'X-IR21-Signature: v1=…' < body.json",
      "ir21 verify --headers-file headers.txt --body-file body.json --at 2026-11-23T04:00:00Z",
      "curl -sD headers.txt … -o body.json && ir21 verify --headers-file headers.txt --ignore-timestamp < body.json",
    ],
    repeatable: ["secret", "header"],
    args: {
      secret: { type: "string", valueHint: "whsec_…", description: "A signing secret (repeatable); default $IR21_WEBHOOK_SECRET" },
      header: { type: "string", valueHint: "'Name: value'", description: "A request header of the delivery (repeatable)" },
      "headers-file": { type: "string", valueHint: "file", description: "Headers as saved, one `Name: value` per line (e.g. curl -D output)" },
      "body-file": { type: "string", valueHint: "file", description: "Read the body from this file instead of stdin" },
      tolerance: { type: "string", valueHint: "seconds", default: String(DEFAULT_TOLERANCE_SECONDS), description: "Accepted distance between the signed timestamp and now" },
      at: { type: "string", valueHint: "time", description: "Check as of this time (ISO 8601 or Unix seconds), e.g. when it was received" },
      "ignore-timestamp": { type: "boolean", description: "Skip the time window check (still checks the timestamp is signed)" },
    },
    run: async (args) => {
      const secrets = rt.repeated.secret ?? (rt.io.env.IR21_WEBHOOK_SECRET ? [rt.io.env.IR21_WEBHOOK_SECRET] : []);
      if (secrets.length === 0) throw new UsageError("Give the signing secret: --secret whsec_… or $IR21_WEBHOOK_SECRET");
      const badSecret = secrets.find((secret) => !/^whsec_./.test(secret));
      if (badSecret !== undefined) throw new UsageError("A signing secret is the whole whsec_… string");
      if (args.at && args["ignore-timestamp"]) throw new UsageError("Give --at or --ignore-timestamp, not both");

      const headers: Record<string, string> = {};
      const addHeader = (line: string, where: string) => {
        const colon = line.indexOf(":");
        if (colon < 1) throw new UsageError(`Not a header (${where}): "${line}"`, "Write headers as 'Name: value'.");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      };
      if (args["headers-file"]) {
        for (const line of readText(args["headers-file"]).split(/\r?\n/)) {
          // Status lines (HTTP/1.1 200 OK) and blank lines of a saved response are not headers.
          if (line.trim() === "" || /^HTTP\/\d/i.test(line) || !line.includes(":")) continue;
          addHeader(line, args["headers-file"]);
        }
      }
      for (const line of rt.repeated.header ?? []) addHeader(line, "--header");

      const rawBody = args["body-file"] ? readBytes(args["body-file"]) : await readStdin(rt.io.stdin);
      const tolerance = args["ignore-timestamp"] ? Number.MAX_SAFE_INTEGER : integer(args.tolerance, "--tolerance", { min: 0, max: 10 ** 9 });
      const now = args.at ? parseTime(args.at) : undefined;

      try {
        const event = await verifyWebhook({ rawBody, headers, secrets, toleranceSeconds: tolerance, now });
        rt.out.success(`Valid delivery: event ${event.id} (${event.type})${event.test ? ", a test event" : ""}`);
        rt.out.result({ valid: true, event }, () => rt.out.line(JSON.stringify(event, null, 2)));
      } catch (error) {
        if (isWebhookVerificationError(error)) throw new CheckFailed(error.code, error.message);
        throw error;
      }
    },
  });
}

function parseTime(value: string): Date {
  const date = /^\d{1,15}$/.test(value) ? new Date(Number(value) * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--at must be ISO 8601 or Unix seconds, got "${value}"`);
  return date;
}

function readBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function readText(path: string): string {
  return readBytes(path).toString("utf8");
}
