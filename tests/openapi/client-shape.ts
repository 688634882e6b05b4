/** The shape of the generated client module (standard-tools.test.ts writes and imports it). */
export declare function lookup(
  baseUrl: string,
  apiKey: string,
  number: string,
): Promise<{ status: number; version: string; country: string | null; body: { meta: Record<string, unknown> } & Record<string, unknown> }>;
