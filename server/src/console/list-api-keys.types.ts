import type { z } from "zod";
import { ApiKeyList, NoInput } from "../contract/console.ts";

export const ZListApiKeysRequest = NoInput;
export const ZListApiKeysResponse = ApiKeyList;
export type TListApiKeysResponse = z.infer<typeof ZListApiKeysResponse>;
