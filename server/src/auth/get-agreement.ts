import { anonymousProcedure } from "../trpc/procedures.ts";
import type { AuthEnv } from "./env.ts";
import { AgreementResponse } from "../contract/auth.ts";

/**
 * GET /auth/agreement: the current terms and privacy versions (TERMS_VERSION, PRIVACY_VERSION), which
 * /auth/sms/code and /auth/login require. The web console shows them beside the tick box.
 */
export const getAgreementProcedure = (env: Pick<AuthEnv, "settings">) =>
  anonymousProcedure.output(AgreementResponse).query(() => {
  const { termsVersion, privacyVersion } = env.settings.agreement;
  return { terms_version: termsVersion, privacy_version: privacyVersion };
});
