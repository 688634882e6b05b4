import type { z } from "zod";
import { NoInput, Usage } from "../contract/console.ts";

export const ZGetUsageRequest = NoInput;
export const ZGetUsageResponse = Usage;
export type TGetUsageResponse = z.infer<typeof ZGetUsageResponse>;
