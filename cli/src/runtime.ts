import type { Readable, Writable } from "node:stream";
import { configDir, DEFAULT_PROFILE, ProfileStore, validProfileName, type Profile, type SavedSession } from "./config.ts";
import type { Globals } from "./command.ts";
import { AuthRequiredError, UsageError } from "./errors.ts";
import { Output } from "./output.ts";
import { Prompter } from "./prompt.ts";
import { openConsole, openData, openListenStream, openRawFetch, type ConsoleClient, type DataApi, type ListenMessage } from "./sdk.ts";

/** Where the CLI reads and writes; the process's own streams, or a test's. */
export interface Io {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
}

export const DEFAULT_BASE_URL = "http://localhost:8787";

export type SettingSource = "flag" | "env" | "profile" | "default";

export interface Setting<T> {
  value: T;
  source: SettingSource;
}

/**
 * One run of the CLI: its streams, the global flags, the chosen profile and the clients built from
 * them. Settings resolve as flag > environment > profile > default (cli/README.md "Configuration").
 */
export class Runtime {
  readonly io: Io;
  readonly globals: Globals;
  readonly out: Output;
  readonly prompt: Prompter;
  readonly profile: ProfileStore;
  readonly profileSource: SettingSource;
  /** Values of the command's repeatable flags. */
  repeated: Record<string, string[]> = {};

  constructor(io: Io, globals: Globals) {
    this.io = io;
    this.globals = globals;
    this.out = new Output({ stdout: io.stdout, stderr: io.stderr, json: globals.json, env: io.env, color: globals.color });
    this.prompt = new Prompter({ stdin: io.stdin, stderr: io.stderr, noInput: globals.noInput });
    const profileName = globals.profile ?? (io.env.IR21_PROFILE || undefined);
    this.profileSource = globals.profile !== undefined ? "flag" : profileName !== undefined ? "env" : "default";
    this.profile = new ProfileStore(configDir(io.env), validProfileName(profileName ?? DEFAULT_PROFILE));
  }

  /** The server this run talks to. */
  baseUrl(profile: Profile = this.profile.read()): Setting<string> {
    const pick = (): Setting<string> => {
      if (this.globals.baseUrl !== undefined) return { value: this.globals.baseUrl, source: "flag" };
      if (this.io.env.IR21_BASE_URL) return { value: this.io.env.IR21_BASE_URL, source: "env" };
      if (profile.base_url) return { value: profile.base_url, source: "profile" };
      return { value: DEFAULT_BASE_URL, source: "default" };
    };
    const setting = pick();
    return { ...setting, value: normaliseBaseUrl(setting.value, setting.source) };
  }

  /**
   * The API key for data commands, if any. A key saved in the profile is only used for the server it
   * was saved for, so pointing the profile elsewhere never sends it to a stranger.
   */
  apiKey(profile: Profile = this.profile.read()): Setting<string> | null {
    if (this.globals.apiKey !== undefined) return { value: this.globals.apiKey, source: "flag" };
    if (this.io.env.IR21_API_KEY) return { value: this.io.env.IR21_API_KEY, source: "env" };
    if (profile.api_key && profile.api_key.base_url === this.baseUrl(profile).value) return { value: profile.api_key.key, source: "profile" };
    return null;
  }

  /**
   * The saved login for the current server, or null: a session is only sent back to its issuer, and
   * one past the expiry the server gave it is not sent at all.
   */
  session(profile: Profile = this.profile.read()): SavedSession | null {
    const session = profile.session;
    if (!session || session.base_url !== this.baseUrl(profile).value) return null;
    if (session.expires_at !== null && Date.parse(session.expires_at) <= Date.now()) return null;
    return session;
  }

  /** A console client without a login, for sign-in and the contact form. */
  anonymousConsole(): ConsoleClient {
    return this.#console(null);
  }

  /** A console client carrying the profile's login; exit 3 (nothing sent) when there is none. */
  console(): ConsoleClient {
    const profile = this.profile.read();
    const session = this.session(profile);
    if (!session) {
      const baseUrl = this.baseUrl(profile).value;
      const saved = profile.session;
      const why =
        saved && saved.base_url === baseUrl
          ? `The login to ${baseUrl} expired at ${saved.expires_at}`
          : `Not logged in to ${baseUrl}${saved ? ` (profile "${this.profile.name}" is logged in to ${saved.base_url})` : ""}`;
      throw new AuthRequiredError(why, `Run \`${this.commandPrefix()} login\` first.`);
    }
    return this.#console(session);
  }

  /**
   * The data client: with the API key (flag > env > profile) if there is one, else the profile's login
   * for this server, else anonymous (the public projection; key-only routes then answer 401, exit 3).
   */
  data(): DataApi {
    const profile = this.profile.read();
    const session = this.session(profile);
    return openData({
      baseUrl: this.baseUrl(profile).value,
      apiKey: this.apiKey(profile)?.value ?? null,
      session: session ? { cookie: session.cookie, expiresAt: session.expires_at } : null,
    });
  }

  /**
   * A fetch for raw calls (`ir21 api`) carrying whatever credentials the profile has for this server:
   * the API key (flag > env > profile) and the login's cookie, refreshed cookies saved as the console's are.
   */
  rawFetch(): (url: string, init: RequestInit) => Promise<Response> {
    const profile = this.profile.read();
    const baseUrl = this.baseUrl(profile).value;
    const session = this.session(profile);
    return openRawFetch({
      baseUrl,
      apiKey: this.apiKey(profile)?.value ?? null,
      session: session ? { cookie: session.cookie, expiresAt: session.expires_at } : null,
      onSessionChange: (next) =>
        this.profile.update((p) => ({ ...p, session: next ? { cookie: next.cookie, expires_at: next.expiresAt, base_url: baseUrl } : undefined })),
    });
  }

  /** `ir21` plus the flags that select this profile, for hints the user can paste. */
  commandPrefix(): string {
    return this.profileSource === "flag" ? `ir21 --profile ${this.profile.name}` : "ir21";
  }

  /** A listen session's stream with the profile's login (checked first, like {@link console}). */
  listenStream(options: Omit<Parameters<typeof openListenStream>[0], "baseUrl" | "session" | "onSessionChange">): AsyncGenerator<ListenMessage, void> {
    this.console();
    const baseUrl = this.baseUrl().value;
    const session = this.session()!;
    return openListenStream({
      ...options,
      baseUrl,
      session: { cookie: session.cookie, expiresAt: session.expires_at },
      onSessionChange: (next) =>
        this.profile.update((profile) => ({ ...profile, session: next ? { cookie: next.cookie, expires_at: next.expiresAt, base_url: baseUrl } : undefined })),
    });
  }

  /** A console client carrying the profile's login if there is one for this server, else anonymous. */
  optionalConsole(): ConsoleClient {
    return this.#console(this.session());
  }

  /** A client for a session that is not (or no longer) the profile's: changes to it are not saved. */
  detachedConsole(session: SavedSession): ConsoleClient {
    return this.#console(session, false);
  }

  #console(session: SavedSession | null, persist = true): ConsoleClient {
    const baseUrl = this.baseUrl().value;
    return openConsole({
      baseUrl,
      session: session ? { cookie: session.cookie, expiresAt: session.expires_at } : null,
      // The server may refresh the cookie on any call; keep the newest, and forget it when cleared.
      onSessionChange: (next) => {
        if (!persist) return;
        this.profile.update((profile) => ({
          ...profile,
          session: next ? { cookie: next.cookie, expires_at: next.expiresAt, base_url: baseUrl } : undefined,
        }));
      },
    });
  }
}

/** Checks a base URL (absolute http(s), nothing after the path) and drops trailing slashes. */
export function normaliseBaseUrl(value: string, source: SettingSource): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`Invalid base URL "${value}" (from ${source})`, "Give an absolute http(s) URL, e.g. https://ir21.example.com");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UsageError(`Invalid base URL "${value}" (from ${source}): only http and https are supported`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new UsageError(`Invalid base URL "${value}" (from ${source}): no query, fragment or credentials`);
  }
  return url.href.replace(/\/+$/, "");
}
