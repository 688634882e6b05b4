import { group, leaf, type Ir21Command } from "../command.ts";
import { humanTime } from "../output.ts";
import type { Runtime } from "../runtime.ts";
import { confirmOrYes, YES_FLAG } from "./shared.ts";

export function keysCommand(rt: Runtime): Ir21Command {
  return group({
    category: "Console",
    summary: "Manage the account's API keys",
    details: "API keys authenticate data requests (X-API-Key). A key's full value is shown once, when it is created.",
    examples: ["ir21 keys list", "ir21 keys create ci-deploy", "ir21 keys revoke key_01jd… --yes"],
    commands: {
      list: leaf({
        summary: "List API keys (prefixes only, never full keys)",
        examples: ["ir21 keys list", "ir21 --json keys list | jq -r '.[] | select(.revoked_at == null) | .id'"],
        args: {},
        run: async () => {
          const data = await rt.console().console.apiKeys.list.query();
          rt.out.result(data.items, () =>
            rt.out.table(
              data.items,
              [
                { header: "ID", value: (k) => k.id, id: true },
                { header: "NAME", value: (k) => k.name },
                { header: "PREFIX", value: (k) => `${k.prefix}…` },
                { header: "CREATED", value: (k) => humanTime(k.created_at) },
                { header: "LAST USED", value: (k) => (k.last_used_at ? humanTime(k.last_used_at) : "never") },
                {
                  header: "STATUS",
                  value: (k) => (k.revoked_at ? `revoked ${humanTime(k.revoked_at)}` : "active"),
                  style: (text, k) => (k.revoked_at ? rt.out.c.dim(text) : rt.out.c.green(text)),
                },
              ],
              "No API keys. Create one with `ir21 keys create <name>`.",
            ),
            data,
          );
        },
      }),
      create: leaf({
        summary: "Create an API key and print it (the only time it is shown)",
        details: [
          "The key alone is printed on stdout, so `KEY=$(ir21 keys create ci)` captures it. Keep it secret.",
          "--json prints the new key's summary with the full key added as `key`.",
        ].join("\n"),
        examples: ["ir21 keys create ci-deploy", "KEY=$(ir21 keys create nightly-export)", "ir21 keys create laptop --save", "ir21 --json keys create ci | jq -r .key"],
        args: {
          name: { type: "positional", required: true, description: "A name to recognise the key by (1-64 characters)" },
          save: { type: "boolean", description: "Also save the key in this profile for data commands on this server" },
        },
        run: async (args) => {
          const data = await rt.console().console.apiKeys.create.mutate({ name: args.name });
          if (args.save) {
            const baseUrl = rt.baseUrl().value;
            rt.profile.update((profile) => ({ ...profile, api_key: { key: data.key, base_url: baseUrl, id: data.item.id } }));
          }
          rt.out.success(`Created API key ${data.item.id} "${data.item.name}"${args.save ? ` and saved it in profile "${rt.profile.name}"` : ""}`);
          rt.out.result({ ...data.item, key: data.key }, () => rt.out.line(data.key), data);
          rt.out.info("Copy the key now: it is not shown again (listings show its prefix only).");
        },
      }),
      revoke: leaf({
        summary: "Revoke an API key (requests with it fail from now on)",
        examples: ["ir21 keys revoke key_01jd…", "ir21 keys revoke key_01jd… --yes"],
        args: {
          "key-id": { type: "positional", required: true, description: "The key's id (key_…), from `ir21 keys list`" },
          ...YES_FLAG,
        },
        run: async (args) => {
          const id = args["key-id"];
          await confirmOrYes(rt, args.yes, `Revoke API key ${id}? Requests using it will fail.`);
          const data = await rt.console().console.apiKeys.revoke.mutate({ id });
          rt.out.success(`Revoked API key ${id}`);
          if (rt.profile.read().api_key?.id === id) {
            rt.profile.update((profile) => ({ ...profile, api_key: undefined }));
            rt.out.info(`It was saved in profile "${rt.profile.name}"; removed it from there too.`);
          }
          rt.out.result({ id, ...data }, () => {}, data);
        },
      }),
    },
  });
}
