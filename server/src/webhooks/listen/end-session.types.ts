import { z } from "zod";

export const ZEndSessionRequest = z.strictObject({ id: z.string().max(64) });
export const ZEndSessionResponse = z.object({ ended: z.literal(true) });
