import { router } from "../trpc/init.ts";
import { submitInquiryProcedure } from "./submit-inquiry.ts";

export const contactRouter = router({
  submit: submitInquiryProcedure,
});
