/** See launch.js. */
export declare function bundleIsCurrent(bundle: string, inputs: { sourceDirs: string[]; files?: string[] }): boolean;
