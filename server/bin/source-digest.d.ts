/** See source-digest.js. */
export declare function sourceDigest(srcDir: string): string;
