import { SmsCodeRequest, SmsCodeResponse } from "../contract/auth.ts";
import { sameOriginProcedure } from "../trpc/procedures.ts";
import { requestCode } from "./accounts.ts";
import type { AuthEnv } from "./env.ts";

/** POST /auth/sms/code: send a sign-in code to a mainland mobile number (agreement required). */
export const sendCodeProcedure = (env: AuthEnv) =>
  sameOriginProcedure
      .input(SmsCodeRequest)
      .output(SmsCodeResponse)
      .mutation(({ ctx, input }) => requestCode(env, input, { ip: ctx.ip, userAgent: ctx.userAgent }));
