import { sessionProcedure } from "../trpc/procedures.ts";
import { revokeApiKey } from "./api-keys.ts";
import { ZRevokeApiKeyRequest, ZRevokeApiKeyResponse } from "./revoke-api-key.types.ts";

/** DELETE /console/api-keys/:id: revoke a key of this account (unusable from the next request on). */
export const revokeApiKeyProcedure = sessionProcedure
  .input(ZRevokeApiKeyRequest)
  .output(ZRevokeApiKeyResponse)
  .mutation(async ({ ctx, input }) => {
    await revokeApiKey(ctx.deps.db, ctx.deps.clock, ctx.deps.credentials, ctx.access.userId, input.id);
    ctx.deps.log.info({ user_id: ctx.access.userId, key_id: input.id }, "API key revoked");
    return { revoked: true as const };
  });
