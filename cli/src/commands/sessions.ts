import { group, leaf, type Ir21Command } from "../command.ts";
import { humanTime } from "../output.ts";
import type { Runtime } from "../runtime.ts";
import { confirmOrYes, YES_FLAG } from "./shared.ts";

export function sessionsCommand(rt: Runtime): Ir21Command {
  return group({
    category: "Console",
    summary: "Manage login sessions (this CLI, browsers, other devices)",
    details: "Revoking sessions signs those devices out. API keys are not affected.",
    examples: ["ir21 sessions list", "ir21 sessions revoke-others --yes"],
    commands: {
      list: leaf({
        summary: "List the account's active login sessions",
        examples: ["ir21 sessions list", "ir21 --json sessions list"],
        args: {},
        run: async () => {
          const data = await rt.console().console.sessions.list.query();
          rt.out.result(data.items, () =>
            rt.out.table(
              data.items,
              [
                { header: "ID", value: (s) => s.id, id: true },
                { header: "CREATED", value: (s) => humanTime(s.created_at) },
                { header: "EXPIRES", value: (s) => humanTime(s.expires_at) },
                { header: "CURRENT", value: (s) => (s.current ? "* this CLI" : ""), style: (text) => rt.out.c.green(text) },
              ],
              "No active sessions.",
            ),
            data,
          );
        },
      }),
      revoke: leaf({
        summary: "Revoke one session (revoking this CLI's own session logs it out)",
        examples: ["ir21 sessions revoke ses_01jd…", "ir21 sessions revoke ses_01jd… --yes"],
        args: {
          "session-id": { type: "positional", required: true, description: "The session's id (ses_…), from `ir21 sessions list`" },
          ...YES_FLAG,
        },
        run: async (args) => {
          const id = args["session-id"];
          await confirmOrYes(rt, args.yes, `Revoke session ${id}? That device will be signed out.`);
          const data = await rt.console().console.sessions.revoke.mutate({ id });
          if (data.current) {
            rt.profile.update((profile) => ({ ...profile, session: undefined }));
            rt.out.success(`Revoked session ${id}: it was this CLI's, so you are now logged out`);
          } else {
            rt.out.success(`Revoked session ${id}`);
          }
          rt.out.result({ id, ...data }, () => {}, data);
        },
      }),
      "revoke-others": leaf({
        summary: "Revoke every session except this CLI's",
        examples: ["ir21 sessions revoke-others", "ir21 sessions revoke-others --yes --json"],
        args: { ...YES_FLAG },
        run: async (args) => {
          await confirmOrYes(rt, args.yes, "Sign out every other session of this account (browsers, other devices)?");
          const data = await rt.console().console.sessions.revokeOthers.mutate();
          rt.out.success(`Revoked ${data.revoked} other session${data.revoked === 1 ? "" : "s"}`);
          rt.out.result(data, () => {});
        },
      }),
    },
  });
}
