import type { z } from "zod";
import { LogoutResponse } from "../contract/auth.ts";

export const ZLogoutResponse = LogoutResponse;
export type TLogoutResponse = z.infer<typeof ZLogoutResponse>;
