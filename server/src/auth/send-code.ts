import { sameOriginProcedure } from "../trpc/procedures.ts";
import { requestCode } from "./accounts.ts";
import { accountsDeps } from "./runtime.ts";
import { ZSendCodeRequest, ZSendCodeResponse } from "./send-code.types.ts";

/** POST /auth/sms/code: send a sign-in code to a mainland mobile number (agreement required). */
export const sendCodeProcedure = sameOriginProcedure
  .input(ZSendCodeRequest)
  .output(ZSendCodeResponse)
  .mutation(({ ctx, input }) => requestCode(accountsDeps(ctx.deps), input, { ip: ctx.ip, userAgent: ctx.userAgent }));
