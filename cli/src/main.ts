import { defineCommand, runCommand, showUsage } from "citty";

const command = defineCommand({
  meta: { name: "ir21", version: "0.1.0", description: "Command-line tool for the ir21 communications data service" },
  subCommands: {},
});

/** Runs the CLI and returns its exit code (0 ok, 1 usage error). */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) {
    await showUsage(command);
    return argv.length === 0 ? 1 : 0;
  }
  if (argv[0] === "--version") {
    console.log("0.1.0");
    return 0;
  }
  try {
    await runCommand(command, { rawArgs: argv });
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
