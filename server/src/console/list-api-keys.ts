import { sessionProcedure } from "../trpc/procedures.ts";
import { listApiKeys } from "./api-keys.ts";
import { ZListApiKeysRequest, ZListApiKeysResponse } from "./list-api-keys.types.ts";

/** GET /console/api-keys: the account's keys (summaries only), revoked ones included, newest first. */
export const listApiKeysProcedure = sessionProcedure
  .input(ZListApiKeysRequest)
  .output(ZListApiKeysResponse)
  .query(async ({ ctx }) => ({ items: await listApiKeys(ctx.deps.db, ctx.access.userId) }));
