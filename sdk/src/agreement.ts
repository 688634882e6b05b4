/**
 * The agreement version this SDK release was written against (contract "Versioning"): sign-in sends it
 * as `terms_version` and `privacy_version`. A server that moved on answers `AGREEMENT_OUTDATED`; show
 * the user the new terms and send the version they accepted.
 */
export const AGREEMENT_VERSION = "2026-09-08";
