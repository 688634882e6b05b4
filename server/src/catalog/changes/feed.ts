import { readChangesAfter } from "./changes.ts";
import type { ChangeFeed } from "../../webhooks/fanout/fanout.ts";

/**
 * The catalogue's change log (catalog_changes) as the fan-out's outbox: imports write it in their own
 * transaction with a strictly increasing seq, so every committed change is here exactly once.
 */
export const catalogChangeFeed: ChangeFeed = { name: "catalog", readAfter: readChangesAfter };
