import { z } from "zod";
import { ListenSession } from "../../contract/webhooks.ts";

export const ZListSessionsRequest = z.strictObject({}).optional();
export const ZListSessionsResponse = z.object({ items: z.array(ListenSession) });
