/** Entry of `pnpm cluster up|down|status` (and the galera-health agent the cluster starts). */
import { down, galeraHealth, status, up } from "./cluster.ts";
import { topology } from "./topology.ts";

const command = process.argv[2];
const t = topology();
const commands: Record<string, () => Promise<void>> = { up: () => up(t), down: () => down(t), status: () => status(t), "galera-health": () => galeraHealth(t) };
const run = command ? commands[command] : undefined;
if (!run) {
  console.error("usage: pnpm cluster up|down|status   (IR21_CLUSTER_DIR, IR21_CLUSTER_BASE_PORT; docs/operations.md)");
  process.exit(64);
}
run().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
