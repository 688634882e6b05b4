import type { z } from "zod";
import { RevokeSessionResponse, SessionIdInput } from "../contract/console.ts";

export const ZRevokeSessionRequest = SessionIdInput;
export const ZRevokeSessionResponse = RevokeSessionResponse;
export type TRevokeSessionRequest = z.infer<typeof ZRevokeSessionRequest>;
