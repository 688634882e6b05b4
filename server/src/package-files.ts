/**
 * The server package's own files (`data/`, `package.json`): found from this module, which sits one
 * level below the package root in the sources (`src/`) and in the bundle (`dist/main.mjs`) alike.
 */
export const PACKAGE_ROOT = new URL("../", import.meta.url);

/** The national registers ir21 may redistribute, compressed (docs/catalog.md "National registers"). */
export const PACKAGED_REGISTERS = new URL("data/registers/", PACKAGE_ROOT);

/**
 * ir21's own sample IR.21 documents (server/samples/ir21; not in the published package, so an install
 * has none): the only samples attributed as ir21's CC0 files.
 */
export const OWN_IR21_SAMPLES = new URL("samples/ir21/", PACKAGE_ROOT);
