// Keep a local copy of the catalogue current: webhook deliveries only trigger a catch-up by version.
import { readFile, writeFile } from "node:fs/promises";
import { createClient, syncChanges, type EventPayload, type Snapshot } from "@ir21/sdk";

const ir21 = createClient({ baseUrl: process.env.IR21_BASE_URL ?? "http://localhost:8787", apiKey: process.env.IR21_API_KEY!, retry: true });
const stateFile = "ir21-state.json";

interface State {
  version: string;
  ranges: Record<string, unknown>;
}

async function loadState(): Promise<State> {
  try {
    return JSON.parse(await readFile(stateFile, "utf8")) as State;
  } catch {
    return { version: "none", ranges: {} };
  }
}

function apply(state: State, event: EventPayload): void {
  if (!event.type.startsWith("ir21.number_range.")) return;
  const { before, after } = event.data as { before?: { id: string }; after?: { id: string } };
  if (after) state.ranges[after.id] = after;
  else if (before) delete state.ranges[before.id];
}

function replaceFrom(state: State, snapshot: Snapshot): void {
  state.ranges = Object.fromEntries(snapshot.number_ranges.map((r) => [r.id, r]));
}

/** Run on a timer and (debounced) whenever a webhook delivery arrives. */
export async function catchUp(): Promise<void> {
  const state = await loadState();
  const result = await syncChanges({
    client: ir21,
    since: state.version,
    onEvent: (event) => apply(state, event),
    onReset: async () => {
      const snapshot = await ir21.snapshot();
      if (snapshot.notModified) return;
      replaceFrom(state, snapshot.data);
      return snapshot.data.dataset_version;
    },
  });
  state.version = result.version;
  await writeFile(stateFile, JSON.stringify(state));
  console.log(`at ${result.version}: ${result.applied} changes, ${result.resets} reloads`);
}

await catchUp();
