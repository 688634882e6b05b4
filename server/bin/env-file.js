// The environment file (docs/operations.md "Configuration files"): before anything reads the
// environment, ir21-server loads `.env` from its working directory, or the file IR21_ENV_FILE names.
// Variables already in the environment win over the file, so a supervisor, a container runtime or a
// shell can always override it. Node's own parser reads the file (util.parseEnv, the one behind
// `node --env-file` and process.loadEnvFile): KEY=value lines, `#` comments, single, double or back
// quotes (double quotes expand \n), an optional `export` prefix.
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";

/** The file cannot be loaded: the launcher prints this and exits 78 (EX_CONFIG), as for a bad variable. */
export class EnvFileError extends Error {
  name = "EnvFileError";
}

/**
 * Loads the environment file into `env` and returns the path loaded, or null when there was none: no
 * IR21_ENV_FILE and no `.env` in `cwd`. IR21_ENV_FILE naming a missing file is an error (it was asked
 * for); IR21_ENV_FILE=/dev/null loads nothing. A variable already in `env`, even empty, is kept.
 * @example
 * loadEnvFile(); // process.env gets .env's variables that were not set
 */
export function loadEnvFile({ env = process.env, cwd = process.cwd() } = {}) {
  const named = env.IR21_ENV_FILE;
  const path = resolve(cwd, named || ".env");
  const label = named ? `IR21_ENV_FILE: ${path}` : path;
  if (!existsSync(path)) {
    if (!named) return null;
    throw new EnvFileError(`${label} does not exist`);
  }
  let text;
  try {
    if (statSync(path).isDirectory()) throw new Error("it is a directory");
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new EnvFileError(`${label} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const [key, value] of Object.entries(parseEnv(text))) {
    if (!Object.hasOwn(env, key)) env[key] = value;
  }
  return path;
}
