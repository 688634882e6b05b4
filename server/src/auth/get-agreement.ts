import { anonymousProcedure } from "../trpc/procedures.ts";
import { ZGetAgreementResponse } from "./get-agreement.types.ts";

/**
 * GET /auth/agreement: the current terms and privacy versions (TERMS_VERSION, PRIVACY_VERSION), which
 * /auth/sms/code and /auth/login require. The web console shows them beside the tick box.
 */
export const getAgreementProcedure = anonymousProcedure.output(ZGetAgreementResponse).query(({ ctx }) => {
  const { termsVersion, privacyVersion } = ctx.deps.config.agreement;
  return { terms_version: termsVersion, privacy_version: privacyVersion };
});
