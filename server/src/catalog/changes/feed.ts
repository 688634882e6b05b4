import { readChangesAfter } from "./changes.ts";

/**
 * The catalogue's change log (catalog_changes) as an outbox: imports write it in their own transaction
 * with a strictly increasing seq, so every committed change is here exactly once. The wiring hands it
 * to the webhook fan-out (app/deps.ts), which reads it by name and position.
 */
export const catalogChangeFeed = { name: "catalog", readAfter: readChangesAfter } as const;
