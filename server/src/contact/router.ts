import { router } from "../trpc/init.ts";
import type { ContactEnv } from "./env.ts";
import { submitInquiryProcedure } from "./submit-inquiry.ts";

/** Enterprise inquiries (contract "Contact"), built from the domain's env. */
export const contactRouter = (env: ContactEnv) =>
  router({
    submit: submitInquiryProcedure(env),
  });
