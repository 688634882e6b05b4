import { authRouter } from "../auth/router.ts";
import type { AuthEnv } from "../auth/env.ts";
import { consoleRouter } from "../console/router.ts";
import type { ConsoleEnv } from "../console/env.ts";
import { contactRouter } from "../contact/router.ts";
import type { ContactEnv } from "../contact/env.ts";
import { router } from "../trpc/init.ts";
import { webhooksRouter } from "../webhooks/router.ts";
import type { WebhookEnv } from "../webhooks/env.ts";

/**
 * The whole tRPC API: one sub-router per domain, each built from its domain's env (app/deps.ts). The
 * SDK's console client is typed from {@link AppRouter}.
 * @example
 * const appRouter = createAppRouter(deps);
 */
export function createAppRouter(envs: { auth: AuthEnv; console: ConsoleEnv; contact: ContactEnv; webhooks: WebhookEnv }) {
  return router({
    auth: authRouter(envs.auth),
    console: consoleRouter(envs.console),
    contact: contactRouter(envs.contact),
    webhooks: webhooksRouter(envs.webhooks),
  });
}

/**
 * Never called: its inferred return type is what declarations print for {@link AppRouter}, the routers'
 * procedures spelled out, without createAppRouter's parameter. `ReturnType<typeof createAppRouter>`
 * would carry the domains' envs (the store, ioredis, pino, Kysely) into the SDK's published types.
 */
function appRouterShape() {
  return createAppRouter(undefined as never);
}

export type AppRouter = ReturnType<typeof appRouterShape>;
