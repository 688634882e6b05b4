import { sessionProcedure } from "../trpc/procedures.ts";
import { createApiKey } from "./api-keys.ts";
import { ZCreateApiKeyRequest, ZCreateApiKeyResponse } from "./create-api-key.types.ts";

/** POST /console/api-keys: create a key; the full key is in this response only (Cache-Control: no-store). */
export const createApiKeyProcedure = sessionProcedure
  .input(ZCreateApiKeyRequest)
  .output(ZCreateApiKeyResponse)
  .mutation(async ({ ctx, input }) => {
    const created = await createApiKey(ctx.deps.db, ctx.deps.clock, ctx.access.userId, input.name, ctx.deps.console.settings.maxActiveKeys);
    ctx.deps.log.info({ user_id: ctx.access.userId, key_id: created.item.id }, "API key created");
    return created;
  });
