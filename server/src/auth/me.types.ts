import type { z } from "zod";
import { MeResponse } from "../contract/auth.ts";

export const ZMeResponse = MeResponse;
export type TMeResponse = z.infer<typeof ZMeResponse>;
