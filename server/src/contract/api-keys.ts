/**
 * API key format (docs/console.md): the recognisable prefix `ir21_`, then base62 characters carrying at
 * least 256 random bits and a checksum. The pattern is what secret scanners and the contact form's
 * "do not paste keys here" check look for.
 */
export const API_KEY_PREFIX = "ir21_";
export const API_KEY_PATTERN = /ir21_[0-9A-Za-z]{40,}/;
