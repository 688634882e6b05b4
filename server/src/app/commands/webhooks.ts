import { defineCommand } from "citty";
import { withServerDeps } from "../command-support.ts";
import type { AppDeps } from "../deps.ts";
import { rekeyWebhookSecrets, type RekeyReport } from "../../webhooks/subscriptions/rekey.ts";

/** `ir21-server webhooks rekey`, as a function the tests call directly. */
export async function rekeyCommand(deps: AppDeps): Promise<RekeyReport> {
  return rekeyWebhookSecrets(deps.webhooks);
}

/** Operators' webhook commands; registered in main.ts. */
export const webhooksCommand = defineCommand({
  meta: { name: "webhooks", description: "Webhooks: re-seal stored signing secrets under the current key" },
  subCommands: {
    rekey: defineCommand({
      meta: {
        name: "rekey",
        description: "Re-encrypt every stored webhook signing secret with WEBHOOK_SECRETS_KEY (older keys from WEBHOOK_SECRETS_PREVIOUS_KEYS and SESSION_SECRET open them)",
      },
      async run() {
        const report = await withServerDeps(rekeyCommand);
        console.log(JSON.stringify(report, null, 2));
        if (report.unreadable.length) {
          console.error(`${report.unreadable.length} subscription(s) have a secret no configured key opens; rotate their secret (grace_seconds: 0) to recover: ${report.unreadable.join(", ")}`);
          process.exitCode = 1;
        }
      },
    }),
  },
});
