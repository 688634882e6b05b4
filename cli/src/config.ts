import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { UsageError } from "./errors.ts";

/**
 * Where the CLI keeps its state: one JSON file per profile under the user's config directory
 * (`$XDG_CONFIG_HOME/ir21/profiles/<name>.json`, else `~/.config/ir21/...`). A profile holds a login
 * session, which is a credential: the directories are 0700 and the files 0600, written atomically.
 */

/** A saved console session and the server that issued it (it is only ever sent back there). */
export interface SavedSession {
  cookie: string;
  expires_at: string | null;
  base_url: string;
}

/** A code sent by `login --send-only`, waiting for `login --code`. No secret: the code is not kept. */
export interface PendingLogin {
  base_url: string;
  phone: string;
  challenge_id: string;
  expires_at: string;
  terms_version: string;
  privacy_version: string;
}

export interface Profile {
  base_url?: string;
  session?: SavedSession;
  /** An API key for data commands, bound to the server it was saved for. */
  api_key?: { key: string; base_url: string; id?: string };
  pending_login?: PendingLogin;
}

export const DEFAULT_PROFILE = "default";
const PROFILE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Checks a profile name before it becomes part of a path (no `..`, no slashes). */
export function validProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`Invalid profile name "${name}": use 1-64 letters, digits, "-" or "_"`);
  }
  return name;
}

/** The ir21 config directory for this environment. XDG says relative XDG_CONFIG_HOME values are ignored. */
export function configDir(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "ir21");
  if (process.platform === "win32" && env.APPDATA) return join(env.APPDATA, "ir21");
  return join(env.HOME || homedir(), ".config", "ir21");
}

export class ProfileStore {
  readonly dir: string;
  readonly name: string;
  readonly path: string;
  readonly #profilesDir: string;

  constructor(dir: string, name: string) {
    this.dir = dir;
    this.name = validProfileName(name);
    this.#profilesDir = join(dir, "profiles");
    this.path = join(this.#profilesDir, `${this.name}.json`);
  }

  read(): Profile {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw error;
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      return parsed as Profile;
    } catch {
      throw new UsageError(`The config file ${this.path} is not valid JSON`, "Fix it, or delete it and log in again.");
    }
  }

  /** Reads, changes and writes the profile; an empty profile removes its file. */
  update(change: (profile: Profile) => Profile): Profile {
    const next = change(this.read());
    const empty = Object.values(next).every((value) => value === undefined);
    if (empty) rmSync(this.path, { force: true });
    else this.#write(next);
    return next;
  }

  /** Names of the profiles that have a file. */
  list(): string[] {
    try {
      return readdirSync(this.#profilesDir)
        .filter((file) => file.endsWith(".json"))
        .map((file) => file.slice(0, -".json".length))
        .filter((name) => PROFILE_NAME.test(name))
        .sort();
    } catch {
      return [];
    }
  }

  #write(profile: Profile): void {
    for (const dir of [this.dir, this.#profilesDir]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // mkdir's mode only applies to a directory it creates (and is masked by the umask).
      chmodSync(dir, 0o700);
    }
    const temporary = `${this.path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600, flag: "wx" });
      renameSync(temporary, this.path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    // A file that existed before with a looser mode is tightened on every save, not only at creation.
    chmodSync(this.path, 0o600);
  }
}
