import { router } from "../trpc/init.ts";
import type { AuthEnv } from "./env.ts";
import { getAgreementProcedure } from "./get-agreement.ts";
import { loginProcedure } from "./login.ts";
import { logoutProcedure } from "./logout.ts";
import { meProcedure } from "./me.ts";
import { sendCodeProcedure } from "./send-code.ts";

/** Sign-in and the signed-in user (docs/auth.md), built from the domain's env. */
export const authRouter = (env: AuthEnv) =>
  router({
    agreement: getAgreementProcedure(env),
    sendCode: sendCodeProcedure(env),
    login: loginProcedure(env),
    me: meProcedure(env),
    logout: logoutProcedure(env),
  });
