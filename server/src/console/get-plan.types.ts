import type { z } from "zod";
import { NoInput, PlanInfo } from "../contract/console.ts";

export const ZGetPlanRequest = NoInput;
export const ZGetPlanResponse = PlanInfo;
export type TGetPlanResponse = z.infer<typeof ZGetPlanResponse>;
