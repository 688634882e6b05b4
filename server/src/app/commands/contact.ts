import { defineCommand } from "citty";
import { UsageError, withServerDeps } from "../command-support.ts";
import { listInquiries } from "../../contact/inquiries.ts";

/** `ir21-server inquiries list`: what people sent through POST /contact, newest first. */
export const inquiriesCommand = defineCommand({
  meta: { name: "inquiries", description: "Contact inquiries sent through POST /contact" },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "List the newest inquiries" },
      args: {
        limit: { type: "string", description: "How many (default 50)", default: "50" },
        json: { type: "boolean", description: "One JSON array instead of text" },
      },
      async run({ args }) {
        const limit = Number(args.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError("--limit must be an integer from 1 to 1000");
        const rows = await withServerDeps((deps) => listInquiries(deps.db, { limit }));
        if (args.json) console.log(JSON.stringify(rows, null, 2));
        else for (const r of rows) console.log(`${r.createdAt.toISOString()}  ${r.id}  ${r.name} <${r.email}> (${r.company})\n  ${r.message.replace(/\n/g, "\n  ")}`);
      },
    }),
  },
});
