import { anonymousProcedure } from "../trpc/procedures.ts";
import { submitInquiry } from "./inquiries.ts";
import { ZSubmitInquiryRequest, ZSubmitInquiryResponse } from "./submit-inquiry.types.ts";

/** POST /contact: store an enterprise inquiry; anonymous or signed in. */
export const submitInquiryProcedure = anonymousProcedure
  .input(ZSubmitInquiryRequest)
  .output(ZSubmitInquiryResponse)
  .mutation(async ({ ctx, input }) => {
    const { id } = await submitInquiry(ctx.deps.db, ctx.deps.clock, input, { userId: null, ip: ctx.ip });
    return { id, received: true as const };
  });
