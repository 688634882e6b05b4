import { AppError } from "../errors.ts";
import { rateLimitHeaders } from "../storage/rate-limiter.ts";
import { anonymousProcedure } from "../trpc/procedures.ts";
import { submitInquiry } from "./inquiries.ts";
import { ZSubmitInquiryRequest, ZSubmitInquiryResponse } from "./submit-inquiry.types.ts";

/**
 * POST /contact: store an enterprise inquiry; anonymous or signed in. A live session cookie attaches
 * the account; a stale or invalid one does not block the inquiry (it is stored as anonymous), because
 * "I cannot sign in any more" is exactly what people write here. Rate-limited per client address.
 */
export const submitInquiryProcedure = anonymousProcedure
  // Before input validation, so that every attempt counts, invalid ones included.
  .use(async ({ ctx, next }) => {
    const limit = ctx.deps.console.settings.contactPerHour;
    const decision = await ctx.deps.console.limiter.consume("contact", `ip:${ctx.ip ?? "unknown"}`, limit, 3600);
    if (!decision.allowed) {
      throw new AppError("RATE_LIMITED", `At most ${limit} inquiries an hour from one address; retry after the Retry-After seconds`, { headers: rateLimitHeaders("contact", decision) });
    }
    return next();
  })
  .input(ZSubmitInquiryRequest)
  .output(ZSubmitInquiryResponse)
  .mutation(async ({ ctx, input }) => {
    let userId: string | null = null;
    if (ctx.sessionToken !== null) {
      const access = await ctx.deps.access.resolve({ sessionToken: ctx.sessionToken, apiKey: null }).catch(() => null);
      if (access?.kind === "session") userId = access.userId;
    }
    const { id } = await submitInquiry(ctx.deps.db, ctx.deps.clock, input, { userId, ip: ctx.ip });
    return { id, received: true as const };
  });
