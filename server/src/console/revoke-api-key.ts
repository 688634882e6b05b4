import { sessionProcedure } from "../trpc/procedures.ts";
import type { ConsoleEnv } from "./env.ts";
import { revokeApiKey } from "./api-keys.ts";
import { ApiKeyIdInput, RevokedResponse } from "../contract/console.ts";

/** DELETE /console/api-keys/:id: revoke a key of this account (unusable from the next request on). */
export const revokeApiKeyProcedure = (env: ConsoleEnv) =>
  sessionProcedure
    .input(ApiKeyIdInput)
    .output(RevokedResponse)
    .mutation(async ({ ctx, input }) => {
      await revokeApiKey(env.db, env.clock, env.revocations, ctx.access.userId, input.id);
      env.log.info({ user_id: ctx.access.userId, key_id: input.id }, "API key revoked");
      return { revoked: true as const };
    });
