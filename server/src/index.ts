/**
 * @ir21/server's public surface: the router type the SDK is typed from, and the wire contract.
 * Nothing here may pull runtime server code into a client bundle: the SDK imports types only.
 */
export type { AppRouter } from "./app/router.ts";
export * from "./contract/index.ts";
