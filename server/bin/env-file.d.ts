/** See env-file.js. */
export declare class EnvFileError extends Error {}
export declare function loadEnvFile(options?: { env?: Record<string, string | undefined>; cwd?: string }): string | null;
