import { sessionProcedure } from "../trpc/procedures.ts";
import { ZMeResponse } from "./me.types.ts";
import { getUser } from "./users.ts";

/** GET /auth/me: the signed-in user; 401 without a live session. */
export const meProcedure = sessionProcedure.output(ZMeResponse).query(async ({ ctx }) => ({ user: await getUser(ctx.deps.db, ctx.access.userId) }));
