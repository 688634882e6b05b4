#!/usr/bin/env node
// The development launcher of a checkout (`pnpm ir21`): runs the CLI's TypeScript sources, the SDK's
// included, through tsx, so an edit needs no build step. It is not published: the package's `ir21`
// is the bundle dist/ir21.mjs (`pnpm -F @ir21/cli build`), which the tests run.
import { register } from "tsx/esm/api";

register();
await import("../src/bin.ts");
