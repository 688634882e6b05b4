import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import superjson from "superjson";
import { AppError } from "../errors.ts";
import { toContractError } from "../http/errors.ts";
import type { Context } from "./context.ts";

/** Procedure metadata; nothing yet, the REST paths live in http/rest-bindings.ts. */
export interface Meta {}

const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
};

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    transformer: superjson,
    // Stacks never leave the server, whatever NODE_ENV says.
    isDev: false,
    errorFormatter({ shape, error, ctx }) {
      const contract = toContractError(error);
      return {
        message: contract.message,
        code: shape.code,
        data: {
          code: shape.data.code,
          httpStatus: contract.status,
          path: shape.data.path,
          /** The contract's string error code, the same as in a REST error body. */
          appCode: contract.code,
          requestId: ctx?.requestId ?? null,
          retryAfter: contract.headers["Retry-After"] ? Number(contract.headers["Retry-After"]) : null,
        },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure starts here: an {@link AppError} thrown by a service becomes a TRPCError with the
 * matching code, so tRPC answers with the contract's HTTP status (not 500) and keeps the AppError as
 * its cause for the REST mapper and the error formatter.
 */
export const baseProcedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: TRPC_CODE_BY_STATUS[cause.status] ?? "INTERNAL_SERVER_ERROR", message: cause.message, cause });
  }
  return result;
});
