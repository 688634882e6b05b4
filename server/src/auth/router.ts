import { router } from "../trpc/init.ts";
import { getAgreementProcedure } from "./get-agreement.ts";
import { loginProcedure } from "./login.ts";
import { logoutProcedure } from "./logout.ts";
import { meProcedure } from "./me.ts";
import { sendCodeProcedure } from "./send-code.ts";

export const authRouter = router({
  agreement: getAgreementProcedure,
  sendCode: sendCodeProcedure,
  login: loginProcedure,
  me: meProcedure,
  logout: logoutProcedure,
});
