import { authRouter } from "../auth/router.ts";
import { consoleRouter } from "../console/router.ts";
import { contactRouter } from "../contact/router.ts";
import { router } from "../trpc/init.ts";
import { webhooksRouter } from "../webhooks/router.ts";

/** The whole tRPC API: one sub-router per domain. The SDK's console client is typed from this. */
export const appRouter = router({
  auth: authRouter,
  console: consoleRouter,
  contact: contactRouter,
  webhooks: webhooksRouter,
});

export type AppRouter = typeof appRouter;
