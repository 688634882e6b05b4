import { defineConfig } from "vitest/config";

/**
 * Two projects, one per database: `sqlite` (the embedded default) and `mysql` (MariaDB/MySQL and
 * Redis on loopback). `pnpm test` runs the one IR21_TEST_DB names (sqlite unless told otherwise); the
 * same test files run in both, through the real HTTP server.
 */
const include = ["server/src/**/*.test.ts", "sdk/src/**/*.test.ts", "cli/src/**/*.test.ts", "tests/**/*.test.ts"];
/**
 * IR21_TEST_SCOPE=runtime (CI's extra Node runtimes, .ci/run): what the runtime can change, leaving out
 * the browser tests and the catalogue's import and lookup internals (data computed in plain JavaScript,
 * half the suite's time). Set here, not with `vitest --exclude`, which the projects' own lists ignore.
 */
const runtimeOnly = process.env.IR21_TEST_SCOPE === "runtime" ? ["tests/browser/**", "server/src/catalog/import/**", "server/src/catalog/lookup/**"] : [];
/**
 * A test's and a hook's bound: with three files sharing two cores, a test that imports the reference
 * data takes up to half as long again as alone (one went from 23 s to 31.5 s and failed the old 30 s
 * bound); a test that hangs still fails, later.
 */
const shared = { include, exclude: ["**/node_modules/**", "tests/bench/**", ...runtimeOnly], testTimeout: 90_000, hookTimeout: 120_000 };

/**
 * Test files run three at a time (IR21_TEST_WORKERS overrides): vitest's default on a 2-core machine is
 * one, yet the suite mostly waits (on its servers, databases, child processes and the browser), so
 * the SQLite suite took 1,520 s with one file at a time and 893 s with three, all passing (2026-11-29):
 * what keeps CI within its 45 minutes. Each file starts its own servers, on free ports, with databases
 * of its own.
 */
const workers = Number(process.env.IR21_TEST_WORKERS ?? 3);

export default defineConfig({
  test: {
    maxWorkers: workers,
    projects: [
      { test: { ...shared, name: "sqlite", env: { IR21_TEST_DB: "sqlite" } } },
      // The browser tests run once, on SQLite: the console is a client of the same API, whose behaviour on
      // MariaDB + Redis the API tests cover (docs/console.md "Web console"). So do the release tests: they
      // prove what a tarball installs and how the server process starts and stops, which no database changes.
      { test: { ...shared, exclude: [...shared.exclude, "tests/browser/**", "tests/release/**"], name: "mysql", env: { IR21_TEST_DB: "mysql" } } },
    ],
  },
});
