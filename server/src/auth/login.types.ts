import type { z } from "zod";
import { LoginRequest, LoginResponse } from "../contract/auth.ts";

export const ZLoginRequest = LoginRequest;
export const ZLoginResponse = LoginResponse;
export type TLoginRequest = z.infer<typeof ZLoginRequest>;
export type TLoginResponse = z.infer<typeof ZLoginResponse>;
