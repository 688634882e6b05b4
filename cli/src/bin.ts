/**
 * The `ir21` executable: the published package's bin is this module bundled with everything it
 * imports (the CLI, the SDK and the libraries) into dist/ir21.mjs, so an installed CLI runs plain
 * JavaScript on Node alone. In a checkout, `pnpm ir21` runs it from source (bin/ir21.js).
 */
import packageJson from "../package.json" with { type: "json" };

// `ir21 … | head` closes the pipe early: that is the reader's choice, not a failure to report.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version") {
  // Scripts and shells call this to probe for the tool: answer without loading the commands.
  process.stdout.write(`${packageJson.version}\n`);
} else {
  // Loaded on demand, so the probe above does not pay for evaluating the command tree, the SDK and tRPC.
  const { main } = await import("./main.ts");
  process.exitCode = await main(argv);
}
