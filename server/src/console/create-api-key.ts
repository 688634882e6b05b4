import { sessionProcedure } from "../trpc/procedures.ts";
import type { ConsoleEnv } from "./env.ts";
import { createApiKey } from "./api-keys.ts";
import { CreateApiKeyRequest, CreateApiKeyResponse } from "../contract/console.ts";

/** POST /console/api-keys: create a key; the full key is in this response only (Cache-Control: no-store). */
export const createApiKeyProcedure = (env: ConsoleEnv) =>
  sessionProcedure
    .input(CreateApiKeyRequest)
    .output(CreateApiKeyResponse)
    .mutation(async ({ ctx, input }) => {
      const created = await createApiKey(env.db, env.clock, ctx.access.userId, input.name, env.settings.maxActiveKeys);
      env.log.info({ user_id: ctx.access.userId, key_id: created.item.id }, "API key created");
      return created;
    });
