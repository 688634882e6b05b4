import { NoInput, RevokeOthersResponse } from "../contract/console.ts";

export const ZRevokeOtherSessionsRequest = NoInput;
export const ZRevokeOtherSessionsResponse = RevokeOthersResponse;
