import { group, leaf, type Ir21Command } from "../command.ts";
import { UsageError } from "../errors.ts";
import { normaliseBaseUrl, type Runtime } from "../runtime.ts";
import { maskKey, readStdinLine } from "./shared.ts";

const KEYS = ["base-url", "api-key"] as const;
const UNSET_KEYS = ["base-url", "api-key", "session"] as const;

export function configCommand(rt: Runtime): Ir21Command {
  return group({
    category: "Setup",
    summary: "Show and change the profile's settings (server, saved API key)",
    details: [
      "Each profile is one file, $XDG_CONFIG_HOME/ir21/profiles/<name>.json (default ~/.config/ir21),",
      "mode 0600. Settings resolve as: flag > environment variable > profile > default.",
    ].join("\n"),
    examples: ["ir21 config show", "ir21 --profile staging config set base-url https://staging.ir21.example.com", "printenv KEY | ir21 config set api-key -"],
    commands: {
      show: leaf({
        summary: "Show where each setting comes from (secrets are never shown)",
        examples: ["ir21 config show", "ir21 --json config show"],
        args: {},
        run: async () => {
          const profile = rt.profile.read();
          const baseUrl = rt.baseUrl(profile);
          const apiKey = rt.apiKey(profile);
          const session = rt.session(profile);
          const data = {
            profile: rt.profile.name,
            profile_source: rt.profileSource,
            path: rt.profile.path,
            base_url: baseUrl,
            logged_in: session !== null,
            session_expires_at: session?.expires_at ?? null,
            api_key: apiKey ? { prefix: apiKey.value.slice(0, 12), source: apiKey.source } : null,
            profiles: rt.profile.list(),
          };
          rt.out.result(data, () =>
            rt.out.fields([
              ["Profile", `${data.profile} (${data.profile_source})`],
              ["File", data.path],
              ["Server", `${baseUrl.value} (${baseUrl.source})`],
              ["Logged in", session ? `yes${session.expires_at ? `, until ${session.expires_at}` : ""}` : "no"],
              ["API key", apiKey ? `${maskKey(apiKey.value)} (${apiKey.source})` : "none"],
              ["Profiles", data.profiles.join(", ") || "none saved yet"],
            ]),
          );
        },
      }),
      set: leaf({
        summary: "Save a setting in the profile",
        details: "base-url: the server for this profile. api-key: a key for data commands (- reads it from stdin, keeping it out of shell history).",
        examples: ["ir21 config set base-url https://ir21.example.com", "ir21 config set api-key - < key.txt"],
        choices: KEYS,
        args: {
          setting: { type: "positional", required: true, description: `The setting: ${KEYS.join(" or ")}` },
          value: { type: "positional", required: true, description: "Its value: a URL for base-url; a key for api-key, or - to read it from stdin" },
        },
        run: async (args) => {
          const key = oneOf(args.setting, KEYS);
          if (key === "base-url") {
            // Validated before saving: a profile with an unusable URL would break every later command.
            const baseUrl = normaliseBaseUrl(args.value, "flag");
            rt.profile.update((profile) => ({ ...profile, base_url: baseUrl }));
            rt.out.success(`Profile "${rt.profile.name}" now uses ${rt.baseUrl().value}`);
          } else {
            const value = args.value === "-" ? await readStdinLine(rt.io.stdin) : args.value;
            if (!value) throw new UsageError("The API key is empty");
            const baseUrl = rt.baseUrl().value;
            rt.profile.update((profile) => ({ ...profile, api_key: { key: value, base_url: baseUrl } }));
            rt.out.success(`Saved API key ${maskKey(value)} in profile "${rt.profile.name}" for ${baseUrl}`);
          }
          rt.out.result({ profile: rt.profile.name, key, saved: true }, () => {});
        },
      }),
      unset: leaf({
        summary: "Remove a setting from the profile (session: forget the login without revoking it)",
        examples: ["ir21 config unset api-key", "ir21 --profile old config unset session"],
        choices: UNSET_KEYS,
        args: {
          setting: { type: "positional", required: true, description: `The setting: ${UNSET_KEYS.join(", ")}` },
        },
        run: async (args) => {
          const key = oneOf(args.setting, UNSET_KEYS);
          const field = ({ "base-url": "base_url", "api-key": "api_key", session: "session" } as const)[key];
          rt.profile.update((profile) => ({ ...profile, [field]: undefined }));
          rt.out.success(`Removed ${key} from profile "${rt.profile.name}"`);
          rt.out.result({ profile: rt.profile.name, key, removed: true }, () => {});
        },
      }),
    },
  });
}

function oneOf<const T extends readonly string[]>(value: string, allowed: T): T[number] {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`Unknown setting "${value}": expected one of ${allowed.join(", ")}`);
  return value as T[number];
}
