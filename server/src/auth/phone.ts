/**
 * Mainland-China mobile numbers: 11 digits starting 13-19, written bare or with +86 (86, 0086), with
 * spaces or hyphens anywhere. A loose syntax check on purpose: carrier range lists age, and the SMS
 * provider is the final judge of deliverability.
 */
const MAINLAND_MOBILE = /^(?:\+86|0086|86)?(1[3-9]\d{9})$/;

/**
 * The number in E.164 (`+86` and 11 digits), or null when it is not a mainland mobile number.
 * @example
 * toE164("138 1234-5678") // "+8613812345678"
 * toE164("+85212345678")  // null
 */
export function toE164(input: string): string | null {
  const compact = input.replace(/[\s-]/g, "");
  const match = MAINLAND_MOBILE.exec(compact);
  return match ? `+86${match[1]}` : null;
}
