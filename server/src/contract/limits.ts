/** Numeric limits fixed by the contract ("Limits"); the numbers the contract leaves open live with their domain. */
export const LIMITS = {
  smsCodeLength: 6,
  smsCodeValiditySeconds: 300,
  wrongCodeAttempts: 5,
  deliveryListLimit: { min: 1, max: 100 },
  retryBatchIds: { min: 1, max: 20 },
  graceSeconds: { min: 0, max: 86_400, default: 3_600 },
  signatureToleranceSeconds: 300,
  agreementVersion: "2026-09-08",
} as const;
