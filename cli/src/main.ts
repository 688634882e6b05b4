import { runCommand } from "citty";
import { CommandLineError, extractGlobals, group, OLD_SPELLINGS_REMOVED_IN, parseInvocation, type Globals, type Ir21Command } from "./command.ts";
import { accountCommands } from "./commands/account.ts";
import { apiCommand } from "./commands/api.ts";
import { authCommands } from "./commands/auth.ts";
import { completionCommand } from "./commands/completion.ts";
import { configCommand } from "./commands/config.ts";
import { contactCommand } from "./commands/contact.ts";
import { dataCommands } from "./commands/data.ts";
import { deliveriesCommand } from "./commands/deliveries.ts";
import { exportCommand } from "./commands/export.ts";
import { keysCommand } from "./commands/keys.ts";
import { listenCommands } from "./commands/listen.ts";
import { sessionsCommand } from "./commands/sessions.ts";
import { verifyCommand } from "./commands/verify.ts";
import { webhooksCommand } from "./commands/webhooks.ts";
import { AuthRequiredError, CheckFailed, EXIT, Interrupted, Stopped, UsageError, type ExitCode } from "./errors.ts";
import { renderHelp } from "./help.ts";
import { Output } from "./output.ts";
import { Runtime, type Io } from "./runtime.ts";
import { apiFailureOf } from "./sdk.ts";
import packageJson from "../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;

/** The whole command tree for one run (commands close over the run's runtime). */
export function rootCommand(rt: Runtime): Ir21Command {
  const root: Ir21Command = group({
    summary: "ir21: the command-line tool for the ir21 communications data service",
    details:
      "Sign in with a mainland-China mobile number, manage API keys, sessions and webhooks, and query the\n" +
      "catalogue of number ranges, operators and networks.",
    examples: ["ir21 login", "ir21 keys create ci-deploy", "ir21 --json keys list", "ir21 lookup +8613912345678", "ir21 webhooks create https://hooks.example.com/ir21 --events all", "ir21 --profile staging whoami", "ir21 api /v1/meta", "source <(ir21 completion bash)"],
    commands: {
      ...authCommands(rt),
      keys: keysCommand(rt),
      sessions: sessionsCommand(rt),
      ...accountCommands(rt),
      webhooks: webhooksCommand(rt),
      deliveries: deliveriesCommand(rt),
      ...listenCommands(rt),
      contact: contactCommand(rt),
      ...dataCommands(rt),
      export: exportCommand(rt),
      verify: verifyCommand(rt),
      api: apiCommand(rt),
      config: configCommand(rt),
      completion: completionCommand(rt, () => root),
    },
  });
  return root;
}

/**
 * Runs the CLI once and returns its exit code (see {@link EXIT}). Everything it prints goes to
 * `io.stdout` (results) and `io.stderr` (the rest).
 * @example
 * process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: string[], io: Io = processIo()): Promise<ExitCode> {
  let rt: Runtime | undefined;
  const json = argv.includes("--json");
  let color: Globals["color"] = "auto";
  try {
    const { globals, rest } = extractGlobals(argv);
    color = globals.color;
    if (globals.version) {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    rt = new Runtime(io, globals);
    const root = rootCommand(rt);
    const invocation = parseInvocation(root, globals, rest);
    if (globals.help || invocation.incomplete) {
      // Asked-for help is the result (stdout, exit 0), and so is a bare `ir21` (gh, stripe: the tool
      // introducing itself); a group without its command is a usage error. Each is coloured for the
      // stream it goes to.
      if (globals.help || invocation.path.length === 0) {
        io.stdout.write(renderHelp(invocation.command, invocation.path, { c: rt.out.c }));
        return EXIT.ok;
      }
      io.stderr.write(renderHelp(invocation.command, invocation.path, { c: rt.out.ce }));
      return EXIT.usage;
    }
    for (const notice of invocation.notices) rt.out.warn(notice);
    if (rt.out.json && rt.out.legacyJson) {
      rt.out.warn(`IR21_LEGACY_JSON is set: --json prints the 0.1 shapes, which go away in ir21 ${OLD_SPELLINGS_REMOVED_IN} (cli/README.md "Migrating from 0.1").`);
    }
    rt.repeated = invocation.repeated;
    await runCommand(root, { rawArgs: invocation.rawArgs });
    return EXIT.ok;
  } catch (error) {
    return report(error, rt?.out ?? new Output({ stdout: io.stdout, stderr: io.stderr, json, env: io.env, color }));
  }
}

/** Prints a failure on stderr (a JSON object under `--json`) and picks the exit code. */
function report(error: unknown, out: Output): ExitCode {
  const emit = (exit: ExitCode, body: { code: string; message: string; request_id?: string | null; status?: number; retry_after?: number | null }, hint?: string) => {
    if (out.json) {
      out.stderr(`${JSON.stringify({ error: hint ? { ...body, hint } : body })}\n`);
      return exit;
    }
    const { ce } = out;
    const code = body.code === "USAGE" ? "" : `${body.code}: `;
    out.stderr(`${ce.red("error:")} ${code}${body.message}\n`);
    if (body.request_id) out.stderr(`${ce.dim("request_id:")} ${body.request_id}\n`);
    if (body.retry_after) out.stderr(`${ce.dim("retry_after:")} ${body.retry_after}s\n`);
    if (hint) out.stderr(`${hint}\n`);
    return exit;
  };

  const failure = apiFailureOf(error);
  if (failure) {
    const body = { code: failure.code, message: failure.message, request_id: failure.requestId, status: failure.status, retry_after: failure.retryAfter };
    if (failure.status === 401) return emit(EXIT.auth, body, "Credentials missing, expired or revoked: run `ir21 login`, or give a valid API key (--api-key or IR21_API_KEY) for data commands.");
    return emit(EXIT.api, body);
  }
  if (error instanceof AuthRequiredError) return emit(EXIT.auth, { code: "AUTH_REQUIRED", message: error.message }, error.hint);
  if (error instanceof CheckFailed) return emit(EXIT.api, { code: error.code, message: error.message });
  if (error instanceof Stopped) {
    out.info(error.message);
    return EXIT.interrupted;
  }
  if (error instanceof Interrupted) return emit(EXIT.interrupted, { code: "INTERRUPTED", message: error.message });
  if (error instanceof CommandLineError || error instanceof UsageError) return emit(EXIT.usage, { code: "USAGE", message: error.message }, error.hint);
  // citty's own argument errors (a missing positional, a bad enum value): citty colours parts of its
  // messages whatever the stream, so the escapes are taken out (colour is ours to decide).
  if (error instanceof Error && error.name === "CLIError") return emit(EXIT.usage, { code: "USAGE", message: stripAnsi(error.message) });
  const message = error instanceof Error ? error.message : String(error);
  return emit(EXIT.usage, { code: "LOCAL_ERROR", message });
}

function stripAnsi(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

function processIo(): Io {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}
