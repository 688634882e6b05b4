import { readFileSync } from "node:fs";
import { leaf, type Ir21Command } from "../command.ts";
import { UsageError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { readStdin } from "./shared.ts";

export function contactCommand(rt: Runtime): Ir21Command {
  return leaf({
    category: "Account",
    summary: "Send an inquiry to the ir21 team (enterprise plans, lost access)",
    details: [
      "The inquiry is stored on the platform; no e-mail is sent. When you are logged in it is linked to",
      "your account. Never include SMS codes or full API keys (the server refuses them).",
      "Missing fields are asked for at a terminal; --message - reads the message from stdin.",
    ].join("\n"),
    examples: [
      'ir21 contact --name "Li Wei" --email li@example.com --company "Example Ltd" --message "We need 10M lookups a month."',
      "ir21 contact --name Ops --email ops@example.com --company Example --message - < inquiry.txt",
    ],
    args: {
      name: { type: "string", valueHint: "name", description: "Your name" },
      email: { type: "string", valueHint: "address", description: "Where the team can reply" },
      company: { type: "string", valueHint: "company", description: "Your company or organisation" },
      message: { type: "string", valueHint: "text", description: "The inquiry (10-5000 characters); - reads stdin" },
      "message-file": { type: "string", valueHint: "path", description: "Read the message from this file" },
    },
    run: async (args) => {
      if (args.message !== undefined && args["message-file"] !== undefined) throw new UsageError("Give --message or --message-file, not both");
      const name = args.name ?? (await rt.prompt.text({ message: "Your name", flag: "--name" }));
      const email = args.email ?? (await rt.prompt.text({ message: "E-mail for the reply", flag: "--email" }));
      const company = args.company ?? (await rt.prompt.text({ message: "Company", flag: "--company" }));
      let message: string;
      if (args["message-file"] !== undefined) message = readLocalFile(args["message-file"]);
      else if (args.message === "-") message = (await readStdin(rt.io.stdin)).toString("utf8");
      else message = args.message ?? (await rt.prompt.text({ message: "Message", flag: "--message" }));
      const receipt = await rt.optionalConsole().contact.submit.mutate({ name, email, company, message });
      rt.out.success(`Inquiry ${receipt.id} received`);
      rt.out.result(receipt, () => {});
    },
  });
}

function readLocalFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
