import type { z } from "zod";
import { ApiKeyIdInput, RevokedResponse } from "../contract/console.ts";

export const ZRevokeApiKeyRequest = ApiKeyIdInput;
export const ZRevokeApiKeyResponse = RevokedResponse;
export type TRevokeApiKeyRequest = z.infer<typeof ZRevokeApiKeyRequest>;
