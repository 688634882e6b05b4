import { DeliveryStatus, EventType, ListenSession, NumberKind, NumberPlan, OperatorLineage, OperatorStatus, RangeHolderReason, ValidationReason } from "@ir21/server";
import type { TestServer } from "@ir21/server/testing";

/**
 * The enumerated values the console shows, from the server's own contract (its zod schemas) and, for
 * the fields the contract leaves open strings, from the server's answers: never from a list copied
 * here, so a value the server starts sending shows up in the tests.
 */
export const CONTRACT_ENUMS = {
  operatorStatus: OperatorStatus.options,
  numberKind: NumberKind.options,
  numberPlan: NumberPlan.options,
  validationReason: ValidationReason.options,
  holderReason: RangeHolderReason.options,
  deliveryStatus: DeliveryStatus.options,
  listenStatus: ListenSession.shape.status.options,
  eventType: EventType.options,
} as const;

/** The lineage reasons (merged, acquired…): values too, though the console does not show them yet. */
export const OTHER_CONTRACT_VALUES: readonly string[] = OperatorLineage.shape.reason.options;

/**
 * Numbers of many of libphonenumber's types (mainland mobile and fixed line, North American toll-free
 * and fixed-or-mobile, British premium-rate, UAN, VoIP, personal and pager numbers, a Swiss voicemail
 * number), plus invalid ones: looked up to collect the `number_type`, `validation_reason` and
 * `range_holder_reason` values the server answers with.
 */
export const SAMPLE_NUMBERS = [
  "+8613912345678",
  "+861012345678",
  "+18002345678",
  "+12015550123",
  "+449098765432",
  "+443001234567",
  "+445612345678",
  "+447012345678",
  "+447640123456",
  "+41860123456789",
  "+85230000000",
  "+8610123",
];

export interface AnsweredValues {
  /** Every network status of the catalogue (its snapshot). */
  networkStatus: string[];
  /** `number_type` of the sample numbers. */
  numberType: string[];
  validationReason: string[];
  holderReason: string[];
  /** Plan ids, and the plans' names as the server writes them (English). */
  planId: string[];
  planName: string[];
}

/** What the server answers, read with a session of its own (its queries are metered on that account). */
export async function answeredValues(server: TestServer, session: { headers: Record<string, string> }): Promise<AnsweredValues> {
  const snapshot = await server.json("/v1/snapshot", { headers: session.headers });
  if (snapshot.status !== 200) throw new Error(`GET /v1/snapshot answered ${snapshot.status}`);
  const lookups = await Promise.all(SAMPLE_NUMBERS.map((n) => server.json(`/v1/lookup?number=${encodeURIComponent(n)}`, { headers: session.headers })));
  const plans = await server.json("/console/plan", { headers: session.headers });
  const distinct = (values: Array<string | null | undefined>) => [...new Set(values.filter((v): v is string => typeof v === "string"))].sort();
  const answers = lookups.map((l) => l.body.data as { number_type: string | null; validation_reason: string | null; range_holder_reason: string | null });
  return {
    // The snapshot is the catalogue itself, not in the answer envelope (docs/api.md "Snapshot").
    networkStatus: distinct((snapshot.body.networks as Array<{ status: string }>).map((n) => n.status)),
    numberType: distinct(answers.map((a) => a.number_type)),
    validationReason: distinct(answers.map((a) => a.validation_reason)),
    holderReason: distinct(answers.map((a) => a.range_holder_reason)),
    planId: distinct((plans.body.data.plans as Array<{ id: string }>).map((p) => p.id)),
    planName: distinct((plans.body.data.plans as Array<{ name: string }>).map((p) => p.name)),
  };
}

/** The rule of docs/console.md "Languages": a local name is shown in Chinese when it is Chinese. */
export const CHINESE_SPEAKING = ["CN", "HK", "MO", "TW", "SG"];
export const isChineseName = (country: string, local: string | null): local is string => local !== null && CHINESE_SPEAKING.includes(country) && /\p{Script=Han}/u.test(local);
