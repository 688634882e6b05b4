import type { AnyTRPCProcedure } from "@trpc/server";
import type { AppRouter } from "./router.ts";

type ProcedurePaths<TRecord, Prefix extends string = ""> = {
  [K in keyof TRecord & string]: TRecord[K] extends AnyTRPCProcedure
    ? `${Prefix}${K}`
    : ProcedurePaths<TRecord[K], `${Prefix}${K}.`>;
}[keyof TRecord & string];

/** A procedure's dotted path in the app router, e.g. "contact.submit". */
export type ProcedurePath = ProcedurePaths<AppRouter["_def"]["record"]>;

export type InputSource = "params" | "query" | "body";

export interface RestBinding {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The frozen path, with `:name` for path parameters. */
  path: `/${string}`;
  procedure: ProcedurePath;
  /**
   * Where the procedure's input comes from, merged in this order (later wins, so path parameters
   * cannot be overridden by a body field). Default: params + query for GET, params + body otherwise.
   */
  input?: readonly InputSource[];
}

/**
 * The frozen REST paths of the contract, each served by a tRPC procedure. Adding an endpoint is one
 * procedure plus one row here; the generic handler in rest.ts does the rest (input, envelope, errors).
 */
export const REST_BINDINGS: readonly RestBinding[] = [
  // Accounts (docs/auth.md)
  { method: "GET", path: "/auth/agreement", procedure: "auth.agreement" },
  { method: "POST", path: "/auth/sms/code", procedure: "auth.sendCode" },
  { method: "POST", path: "/auth/login", procedure: "auth.login" },
  { method: "GET", path: "/auth/me", procedure: "auth.me" },
  { method: "POST", path: "/auth/logout", procedure: "auth.logout" },
  // Console (docs/console.md)
  { method: "GET", path: "/console/api-keys", procedure: "console.apiKeys.list" },
  { method: "POST", path: "/console/api-keys", procedure: "console.apiKeys.create" },
  { method: "DELETE", path: "/console/api-keys/:id", procedure: "console.apiKeys.revoke" },
  { method: "GET", path: "/console/usage", procedure: "console.usage" },
  { method: "GET", path: "/console/plan", procedure: "console.plan" },
  { method: "GET", path: "/console/billing", procedure: "console.billing" },
  { method: "GET", path: "/console/sessions", procedure: "console.sessions.list" },
  { method: "DELETE", path: "/console/sessions/:id", procedure: "console.sessions.revoke" },
  { method: "POST", path: "/console/sessions/revoke-others", procedure: "console.sessions.revokeOthers" },
  // Contact
  { method: "POST", path: "/contact", procedure: "contact.submit" },
  // Webhooks
  { method: "GET", path: "/console/webhooks", procedure: "webhooks.list" },
  { method: "POST", path: "/console/webhooks", procedure: "webhooks.create" },
  { method: "PATCH", path: "/console/webhooks/:id", procedure: "webhooks.update" },
  { method: "DELETE", path: "/console/webhooks/:id", procedure: "webhooks.delete" },
  { method: "POST", path: "/console/webhooks/:id/test", procedure: "webhooks.sendTest" },
  { method: "GET", path: "/console/webhooks/:id/deliveries", procedure: "webhooks.listDeliveries" },
  { method: "POST", path: "/console/webhooks/:id/deliveries/retry-batch", procedure: "webhooks.retryDeliveries" },
  { method: "GET", path: "/console/webhooks/:id/deliveries/:deliveryId", procedure: "webhooks.getDelivery" },
  { method: "POST", path: "/console/webhooks/:id/deliveries/:deliveryId/retry", procedure: "webhooks.retryDelivery" },
  { method: "POST", path: "/console/webhooks/:id/rotate-secret", procedure: "webhooks.rotateSecret" },
  { method: "DELETE", path: "/console/webhooks/:id/previous-secret", procedure: "webhooks.revokePreviousSecret" },
  // Listen sessions (additive; docs/webhooks.md "Listen sessions"). The stream itself,
  // GET /console/listen-sessions/stream, is an h3 route (webhooks/listen/open-stream.ts).
  { method: "GET", path: "/console/listen-sessions", procedure: "webhooks.listen.list" },
  { method: "POST", path: "/console/listen-sessions/trigger", procedure: "webhooks.listen.trigger" },
  { method: "DELETE", path: "/console/listen-sessions/:id", procedure: "webhooks.listen.end" },
  { method: "GET", path: "/console/listen-sessions/:id/deliveries", procedure: "webhooks.listen.listDeliveries" },
  { method: "GET", path: "/console/listen-sessions/:id/deliveries/:deliveryId", procedure: "webhooks.listen.getDelivery" },
  { method: "POST", path: "/console/listen-sessions/:id/deliveries/:deliveryId/report", procedure: "webhooks.listen.report" },
];
