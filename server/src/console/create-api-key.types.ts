import type { z } from "zod";
import { CreateApiKeyRequest, CreateApiKeyResponse } from "../contract/console.ts";

export const ZCreateApiKeyRequest = CreateApiKeyRequest;
export const ZCreateApiKeyResponse = CreateApiKeyResponse;
export type TCreateApiKeyRequest = z.infer<typeof ZCreateApiKeyRequest>;
export type TCreateApiKeyResponse = z.infer<typeof ZCreateApiKeyResponse>;
