import { router } from "../trpc/init.ts";
import type { ConsoleEnv } from "./env.ts";
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
export const consoleRouter = (env: ConsoleEnv) =>
  router({
    apiKeys: router({ list: listApiKeysProcedure(env), create: createApiKeyProcedure(env), revoke: revokeApiKeyProcedure(env) }),
    sessions: router({ list: listSessionsProcedure(env), revoke: revokeSessionProcedure(env), revokeOthers: revokeOtherSessionsProcedure(env) }),
    usage: getUsageProcedure(env),
    plan: getPlanProcedure(env),
    billing: getBillingProcedure(),
  });
