import { sessionProcedure } from "../trpc/procedures.ts";
import { MeResponse } from "../contract/auth.ts";
import type { AuthEnv } from "./env.ts";
import { getUser } from "./users.ts";

/** GET /auth/me: the signed-in user; 401 without a live session. */
export const meProcedure = (env: Pick<AuthEnv, "db">) =>
  sessionProcedure.output(MeResponse).query(async ({ ctx }) => ({ user: await getUser(env.db, ctx.access.userId) }));
