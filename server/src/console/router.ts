import { router } from "../trpc/init.ts";
import { createApiKeyProcedure } from "./create-api-key.ts";
import { getBillingProcedure } from "./get-billing.ts";
import { getPlanProcedure } from "./get-plan.ts";
import { getUsageProcedure } from "./get-usage.ts";
import { listApiKeysProcedure } from "./list-api-keys.ts";
import { listSessionsProcedure } from "./list-sessions.ts";
import { revokeApiKeyProcedure } from "./revoke-api-key.ts";
import { revokeOtherSessionsProcedure } from "./revoke-other-sessions.ts";
import { revokeSessionProcedure } from "./revoke-session.ts";

/** Console operations; every one needs an account session (an API key alone is 403). */
export const consoleRouter = router({
  apiKeys: router({ list: listApiKeysProcedure, create: createApiKeyProcedure, revoke: revokeApiKeyProcedure }),
  sessions: router({ list: listSessionsProcedure, revoke: revokeSessionProcedure, revokeOthers: revokeOtherSessionsProcedure }),
  usage: getUsageProcedure,
  plan: getPlanProcedure,
  billing: getBillingProcedure,
});
