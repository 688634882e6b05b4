import { z } from "zod";

export const ZRevokePreviousSecretRequest = z.strictObject({ id: z.string().max(64) });
export const ZRevokePreviousSecretResponse = z.object({ revoked: z.literal(true) });
