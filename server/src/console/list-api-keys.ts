import { sessionProcedure } from "../trpc/procedures.ts";
import type { ConsoleEnv } from "./env.ts";
import { listApiKeys } from "./api-keys.ts";
import { ApiKeyList, NoInput } from "../contract/console.ts";

/** GET /console/api-keys: the account's keys (summaries only), revoked ones included, newest first. */
export const listApiKeysProcedure = (env: ConsoleEnv) =>
  sessionProcedure
    .input(NoInput)
    .output(ApiKeyList)
    .query(async ({ ctx }) => ({ items: await listApiKeys(env.db, ctx.access.userId) }));
