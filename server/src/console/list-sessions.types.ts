import type { z } from "zod";
import { NoInput, SessionList } from "../contract/console.ts";

export const ZListSessionsRequest = NoInput;
export const ZListSessionsResponse = SessionList;
export type TListSessionsResponse = z.infer<typeof ZListSessionsResponse>;
