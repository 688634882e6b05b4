import { AppError } from "../errors.ts";
import { rateLimitHeaders } from "../storage/rate-limiter.ts";
import { anonymousProcedure, optionalSessionUser } from "../trpc/procedures.ts";
import type { ContactEnv } from "./env.ts";
import { submitInquiry } from "./inquiries.ts";
import { ContactInquiryInput, ContactInquiryReceipt } from "../contract/contact.ts";

/**
 * POST /contact: store an enterprise inquiry; anonymous or signed in. A live session cookie attaches
 * the account; a stale or invalid one does not block the inquiry (it is stored as anonymous), because
 * "I cannot sign in any more" is exactly what people write here. Rate-limited per client address.
 */
export const submitInquiryProcedure = (env: ContactEnv) =>
  anonymousProcedure
    // Before input validation, so that every attempt counts, invalid ones included.
    .use(async ({ ctx, next }) => {
      const limit = env.inquiriesPerHour;
      const decision = await env.limiter.consume("contact", `ip:${ctx.ip ?? "unknown"}`, limit, 3600);
      if (!decision.allowed) {
        throw new AppError("RATE_LIMITED", `At most ${limit} inquiries an hour from one address; retry after the Retry-After seconds`, { headers: rateLimitHeaders("contact", decision) });
      }
      return next();
    })
    .input(ContactInquiryInput)
    .output(ContactInquiryReceipt)
    .mutation(async ({ ctx, input }) => {
      const userId = await optionalSessionUser(ctx);
      const { id } = await submitInquiry(env.db, env.clock, input, { userId, ip: ctx.ip });
      return { id, received: true as const };
    });
