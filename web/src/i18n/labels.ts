import type { DeliveryStatus, EventType, ListenSession, NumberLookup, NumberRange, Operator } from "@ir21/sdk";
import { en, type MessageKey } from "./en.ts";

/**
 * Every enumerated value the console shows, with its text in both languages: a value on the wire
 * (`active`, `not_operational`, `fixed_line_or_mobile`) is never shown as it is, only through its
 * label `enum.<kind>.<value>` in en.ts and zh.ts. Identifiers a machine reads (event types in code,
 * ids, JSON) keep their spelling; where an event type is shown as a label it has a name here too.
 *
 * The closed enums take their values from the SDK's wire types (generated from the server's contract),
 * so a value added to the contract without a text fails `pnpm typecheck` (see `MissingTexts`). The
 * contract leaves a few fields open strings; their known values are listed here, from the data and the
 * docs, and tests/browser/console-text.test.ts checks the lists against the server's real answers.
 * A value the console does not know yet (a newer server) is shown as code, marked as a raw value.
 */

/** Network statuses as the reference catalogue writes them (mcc-mnc-list's status, snake_cased). */
export const NETWORK_STATUSES = [
  "operational",
  "not_operational",
  "unknown",
  "reserved",
  "returned_spare",
  "allocated",
  "planned",
  "upcoming",
  "testing",
  "test_network",
  "temporary_operational",
  "implement_design",
  // The newer MCC/MNC list and ARCEP's MAJMNC (an MNC the regulator assigned, not yet known to run).
  "assigned",
  "building_network",
  "ongoing",
] as const;

/** Why a listen session ended (docs/webhooks.md "Listen sessions"). */
export const LISTEN_END_REASONS = ["ended", "stream_closed", "shutdown", "lease_expired", "idle", "replaced"] as const;

/**
 * The word a delivery's or attempt's error starts with (`timeout: …`, docs/webhooks.md): the sender's
 * failures, a cancellation, and a listen delivery's own ones.
 */
export const DELIVERY_ERRORS = [
  "http_status",
  "timeout",
  "connect_timeout",
  "connection",
  "dns",
  "tls",
  "ssrf_blocked",
  "redirect_not_followed",
  "internal",
  "cancelled",
  "no_report",
  "backpressure",
  "stream_closed",
] as const;

/** The plans the server ships (server/src/console/plans.ts); their names come from the server in English. */
export const PLAN_IDS = ["free", "developer", "business", "enterprise"] as const;

/** Range kinds in the order the browse filter offers them: the contract's NumberKind, every value. */
export const NUMBER_KINDS = [
  "mobile",
  "fixed_line_or_mobile",
  "fixed",
  "pager",
  "toll_free",
  "premium_rate",
  "shared_cost",
  "voip",
  "personal_number",
  "uan",
  "voicemail",
  "other",
] as const satisfies readonly NumberRange["kind"][];
export const NUMBER_PLANS = ["e164", "e212"] as const satisfies readonly NumberRange["plan"][];

/** The value type of each kind of label. */
export interface EnumValues {
  operatorStatus: Operator["status"];
  networkStatus: (typeof NETWORK_STATUSES)[number];
  numberKind: NumberRange["kind"];
  numberPlan: NumberRange["plan"];
  validationReason: NonNullable<NumberLookup["validation_reason"]>;
  holderReason: NonNullable<NumberLookup["range_holder_reason"]>;
  deliveryStatus: DeliveryStatus;
  deliveryError: (typeof DELIVERY_ERRORS)[number];
  listenStatus: ListenSession["status"];
  listenEndReason: (typeof LISTEN_END_REASONS)[number];
  plan: (typeof PLAN_IDS)[number];
  eventType: EventType;
}
export type EnumKind = keyof EnumValues;

type EnumKey = { [K in EnumKind]: `enum.${K}.${EnumValues[K]}` }[EnumKind];
/** Texts a value has not got: must be none (zh.ts has every key of en.ts, so both languages are covered). */
type MissingTexts = Exclude<EnumKey, MessageKey>;
const noMissingTexts: [MissingTexts] extends [never] ? true : MissingTexts = true;
void noMissingTexts;
/** Every NumberKind is offered by the browse filter. */
const allKinds: Exclude<NumberRange["kind"], (typeof NUMBER_KINDS)[number]> extends never ? true : never = true;
void allKinds;

/** The text key of a value, or null when the console has no text for it (an unknown value of an open field). */
export function enumKey(kind: EnumKind, value: string): MessageKey | null {
  const key = `enum.${kind}.${value}`;
  return Object.hasOwn(en, key) ? (key as MessageKey) : null;
}

/**
 * libphonenumber's number type of a looked-up number (`number_type`, its PhoneNumberType lower-cased)
 * as a range kind, whose texts it shares: the kinds are the same types, with FIXED_LINE written `fixed`
 * (the contract's NumberKind).
 */
export const numberTypeKind = (numberType: string): string => (numberType === "fixed_line" ? "fixed" : numberType);

/** A delivery's or attempt's error (`code: what happened`): its code, when it has one the console knows. */
export function deliveryErrorCode(error: string): (typeof DELIVERY_ERRORS)[number] | null {
  const code = /^([a-z_]+):/.exec(error)?.[1];
  return code && (DELIVERY_ERRORS as readonly string[]).includes(code) ? (code as (typeof DELIVERY_ERRORS)[number]) : null;
}
