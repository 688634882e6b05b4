import { leaf, type Ir21Command } from "../command.ts";
import { completionScript, SHELLS, type Shell } from "../completion.ts";
import { UsageError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";

/** `ir21 completion bash|zsh|fish`: prints the shell's completion script (see completion.ts). */
export function completionCommand(rt: Runtime, root: () => Ir21Command): Ir21Command {
  return leaf({
    category: "Setup",
    summary: "Print a shell completion script (bash, zsh or fish)",
    details: [
      "Load it in your shell's start-up file:",
      "  bash  ~/.bashrc:    source <(ir21 completion bash)",
      "  zsh   ~/.zshrc:     source <(ir21 completion zsh)",
      "  fish  once:         ir21 completion fish > ~/.config/fish/completions/ir21.fish",
      "Commands, flags, the values of flags with a fixed set (--status, --color…) and of arguments with one",
      "(export's <resource>, config's <setting>, this command's <shell>) complete.",
    ].join("\n"),
    examples: ["ir21 completion bash", "source <(ir21 completion zsh)", "ir21 completion fish > ~/.config/fish/completions/ir21.fish"],
    choices: SHELLS,
    args: { shell: { type: "positional", required: true, description: `The shell: ${SHELLS.join(", ")}` } },
    run: async (args) => {
      if (!(SHELLS as readonly string[]).includes(args.shell)) throw new UsageError(`Unknown shell "${args.shell}"`, `One of ${SHELLS.join(", ")}`);
      rt.io.stdout.write(completionScript(args.shell as Shell, root()));
    },
  });
}
