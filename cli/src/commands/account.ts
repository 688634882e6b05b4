import { leaf, type Ir21Command } from "../command.ts";
import { humanTime } from "../output.ts";
import type { Runtime } from "../runtime.ts";

export function accountCommands(rt: Runtime): Record<string, Ir21Command> {
  return {
    usage: leaf({
      category: "Console",
      summary: "Show this month's data usage against the quota",
      details: "Only successful data queries count against the quota; failures are shown but never charged.",
      examples: ["ir21 usage", "ir21 --json usage | jq '.quota - .used'"],
      args: {
        daily: { type: "boolean", description: "Also list every day of the period" },
      },
      run: async (args) => {
        const usage = await rt.console().console.usage.query();
        rt.out.result(usage, () => {
          const percent = usage.quota > 0 ? ` (${((usage.used / usage.quota) * 100).toFixed(1)}%)` : "";
          rt.out.fields([
            ["Period", `${humanTime(usage.period.start)} to ${humanTime(usage.period.end)}`],
            ["Used", `${usage.used} of ${usage.quota}${percent}`],
            ["Failures", `${usage.failures} (not charged)`],
            ["Resets", humanTime(usage.resets_at)],
          ]);
          rt.out.line();
          rt.out.table(
            usage.by_endpoint,
            [
              { header: "ENDPOINT", value: (e) => e.endpoint },
              { header: "COUNT", value: (e) => e.count },
            ],
            "No data queries yet this period.",
          );
          if (args.daily) {
            rt.out.line();
            const peak = Math.max(1, ...usage.daily.map((d) => d.count));
            rt.out.table(
              usage.daily,
              [
                { header: "DATE", value: (d) => d.date },
                { header: "COUNT", value: (d) => String(d.count) },
                { header: "", value: (d) => "▇".repeat(Math.round((d.count / peak) * 30)) },
              ],
              "No days yet.",
            );
          }
        });
      },
    }),
    plan: leaf({
      category: "Console",
      summary: "Show the account's plan and the plans on offer",
      details: "Pricing is provisional and payment is disabled: nothing is ever charged.",
      examples: ["ir21 plan", "ir21 --json plan | jq -r .current_plan"],
      args: {},
      run: async () => {
        const plan = await rt.console().console.plan.query();
        rt.out.result(plan, () => {
          rt.out.fields([
            ["Current plan", plan.current_plan],
            ["Payment", plan.payment_enabled ? "enabled" : "disabled (nothing is charged)"],
          ]);
          rt.out.line();
          rt.out.table(
            plan.plans,
            [
              { header: "PLAN", value: (p) => p.id },
              { header: "NAME", value: (p) => p.name },
              { header: "QUOTA/MONTH", value: (p) => p.monthly_quota },
              { header: "RATE/MIN", value: (p) => p.rate_limit_per_minute },
              { header: "PRICE", value: (p) => (p.price ? `${p.price.amount} ${p.price.currency}/${p.price.interval}` : "by agreement") },
              { header: "", value: (p) => (p.id === plan.current_plan ? "* current" : ""), style: (text) => rt.out.c.green(text) },
            ],
            "No plans on offer.",
          );
          if (plan.pricing_is_provisional) rt.out.info("Prices are provisional.");
        });
      },
    }),
    billing: leaf({
      category: "Console",
      summary: "Show bills (there are none: payment is disabled)",
      examples: ["ir21 billing", "ir21 --json billing"],
      args: {},
      run: async () => {
        const billing = await rt.console().console.billing.query();
        rt.out.result(billing, () => {
          if (billing.items.length === 0) rt.out.line(`No bills.${billing.payment_enabled ? "" : " Payment is disabled, so none are generated."}`);
          else for (const item of billing.items) rt.out.line(JSON.stringify(item));
        });
      },
    }),
  };
}
