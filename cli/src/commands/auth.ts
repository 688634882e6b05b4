import { leaf, type Ir21Command } from "../command.ts";
import type { PendingLogin } from "../config.ts";
import { UsageError } from "../errors.ts";
import { humanTime } from "../output.ts";
import type { Runtime } from "../runtime.ts";
import { AGREEMENT_VERSIONS, apiFailureOf, type ConsoleClient } from "../sdk.ts";
import { maskPhone, readStdinLine } from "./shared.ts";

/** The contract's phone rule, for prompting only: the server stays the judge (INVALID_PHONE). */
const MAINLAND_MOBILE = /^(?:\+86|0086|86)?1[3-9]\d{9}$/;
const CODE = /^\d{6}$/;

interface Agreement {
  agreed: true;
  terms_version: string;
  privacy_version: string;
}

export function authCommands(rt: Runtime): Record<string, Ir21Command> {
  return {
    login: leaf({
      category: "Account",
      summary: "Sign in with a mainland-China mobile number and an SMS code",
      details: [
        "Shows the agreement versions and asks you to accept them, sends a 6-digit code by SMS, and asks",
        "for it. The session is saved in the profile (a 0600 file) for this server only.",
        "",
        "Scripts: pass --phone and --agree; then either --code - (the code is read from stdin after it is",
        "sent), or split the login in two runs: --send-only sends the code and remembers the challenge,",
        "and a later `ir21 login --code 123456` (or --challenge-id with --phone) finishes it.",
      ].join("\n"),
      examples: [
        "ir21 login",
        "ir21 login --phone 13800138000 --agree --send-only",
        "ir21 login --code 123456",
        "ir21 --base-url https://ir21.example.com --profile prod login",
      ],
      args: {
        phone: { type: "string", valueHint: "number", description: "Mainland mobile number: 11 digits or +86 form" },
        agree: { type: "boolean", description: "Accept the terms of service and privacy policy (asked otherwise)" },
        code: { type: "string", valueHint: "code", description: "The SMS code of a code already sent, or - to read it from stdin" },
        "send-only": { type: "boolean", description: "Send the code and stop; finish with `ir21 login --code …`" },
        "challenge-id": { type: "string", valueHint: "chl_…", description: "Finish the sign-in of this challenge (from --send-only --json)" },
        "terms-version": { type: "string", valueHint: "version", description: `Terms version you accept (default ${AGREEMENT_VERSIONS.terms})` },
        "privacy-version": { type: "string", valueHint: "version", description: `Privacy policy version you accept (default ${AGREEMENT_VERSIONS.privacy})` },
      },
      run: (args) => login(rt, args),
    }),
    whoami: leaf({
      category: "Account",
      summary: "Show the signed-in account",
      examples: ["ir21 whoami", "ir21 --json whoami | jq -r .phone"],
      args: {},
      run: async () => {
        const { user } = await rt.console().auth.me.query();
        rt.out.result(user, () =>
          rt.out.fields([
            ["Phone", user.phone],
            ["User", user.id],
            ["Name", user.name],
            ["Plan", user.plan],
            ["Since", humanTime(user.created_at)],
            ["Server", rt.baseUrl().value],
            ["Profile", rt.profile.name],
          ]),
          { user },
        );
      },
    }),
    logout: leaf({
      category: "Account",
      summary: "Sign out: revoke this session on the server and forget it",
      examples: ["ir21 logout", "ir21 --profile staging logout"],
      args: {},
      run: async () => {
        const baseUrl = rt.baseUrl().value;
        if (rt.session()) {
          try {
            await rt.console().auth.logout.mutate();
          } catch (error) {
            // Already expired or revoked: nothing left to revoke, forgetting it is all there is to do.
            if (apiFailureOf(error)?.status !== 401) throw error;
          }
          rt.profile.update((profile) => ({ ...profile, session: undefined }));
          rt.out.success(`Logged out of ${baseUrl}`);
        } else {
          rt.out.info(`Not logged in to ${baseUrl}`);
        }
        rt.out.result({ logged_out: true }, () => {});
      },
    }),
  };
}

interface LoginArgs {
  phone?: string;
  agree?: boolean;
  code?: string;
  "send-only"?: boolean;
  "challenge-id"?: string;
  "terms-version"?: string;
  "privacy-version"?: string;
}

async function login(rt: Runtime, args: LoginArgs): Promise<void> {
  const profile = rt.profile.read();
  const baseUrl = rt.baseUrl(profile).value;
  const previous = rt.session(profile);
  const client = rt.anonymousConsole();
  if (args["send-only"] && (args.code !== undefined || args["challenge-id"] !== undefined)) {
    throw new UsageError("--send-only sends a new code: it does not take --code or --challenge-id");
  }

  const pending = usablePending(profile.pending_login, baseUrl, args);
  let phone: string;
  let challengeId: string;
  let agreement: Agreement;

  if (args["challenge-id"] !== undefined || (pending && args.code !== undefined)) {
    // The second half of a split sign-in: the code was sent by an earlier run.
    challengeId = args["challenge-id"] ?? pending!.challenge_id;
    const samePending = pending?.challenge_id === challengeId ? pending : undefined;
    const phoneGiven = args.phone ?? samePending?.phone;
    if (!phoneGiven) throw new UsageError("--challenge-id needs the --phone the code was sent to");
    phone = phoneGiven;
    agreement = samePending && !args.agree ? { agreed: true, terms_version: samePending.terms_version, privacy_version: samePending.privacy_version } : await accept(rt, args);
  } else {
    if (args.code !== undefined && args.code !== "-") {
      throw new UsageError("No code has been sent for this --code", "Send one first: `ir21 login --phone … --agree --send-only`, or use --code - to read it from stdin.");
    }
    phone = args.phone ?? (await rt.prompt.text({ message: "Mobile number (mainland China)", flag: "--phone", placeholder: "13800138000", validate: (v) => (MAINLAND_MOBILE.test(v.replace(/[\s-]/g, "")) ? undefined : "Enter 11 digits starting 13-19, or the +86 form") }));
    agreement = await accept(rt, args);
    const sent = await client.auth.sendCode.mutate({ phone, ...agreement });
    challengeId = sent.challenge_id;
    rt.profile.update((p) => ({
      ...p,
      pending_login: {
        base_url: baseUrl,
        phone,
        challenge_id: sent.challenge_id,
        expires_at: new Date(Date.now() + sent.expires_in * 1000).toISOString(),
        terms_version: agreement.terms_version,
        privacy_version: agreement.privacy_version,
      },
    }));
    if (args["send-only"]) {
      rt.out.success(`Sent a code to ${maskPhone(phone)}; it is valid for ${Math.round(sent.expires_in / 60)} minutes`);
      rt.out.result(sent, () => rt.out.line(`Finish with: ${rt.commandPrefix()} login --code <code>`));
      return;
    }
    rt.out.success(`Sent a code to ${maskPhone(phone)} (valid ${Math.round(sent.expires_in / 60)} minutes)`);
  }

  const result = await finish(rt, client, { phone, challengeId, agreement, code: args.code });
  rt.profile.update((p) => ({ ...p, base_url: baseUrl, pending_login: undefined }));
  if (!rt.session()) throw new Error("The server accepted the code but set no session cookie");
  if (previous && previous.cookie !== rt.session()?.cookie) {
    // Logging in again replaces the saved session: revoke the old one rather than leave it live unseen.
    await rt.detachedConsole(previous).auth.logout.mutate().catch(() => undefined);
  }
  rt.out.success(`Logged in to ${baseUrl} as ${result.user.phone}${result.created ? " (new account)" : ""}`);
  rt.out.result(result, () => {});
}

/** The pending challenge `args` may continue: same server, not expired, same phone if one is given. */
function usablePending(pending: PendingLogin | undefined, baseUrl: string, args: LoginArgs): PendingLogin | undefined {
  if (!pending || pending.base_url !== baseUrl) return undefined;
  if (Date.parse(pending.expires_at) <= Date.now()) return undefined;
  if (args.phone !== undefined && args.phone.replace(/\D/g, "").slice(-11) !== pending.phone.replace(/\D/g, "").slice(-11)) return undefined;
  return pending;
}

async function accept(rt: Runtime, args: LoginArgs): Promise<Agreement> {
  const terms = args["terms-version"] ?? AGREEMENT_VERSIONS.terms;
  const privacy = args["privacy-version"] ?? AGREEMENT_VERSIONS.privacy;
  if (!args.agree) {
    rt.prompt.note(`Signing in means accepting the ir21 Terms of Service (version ${terms}) and Privacy Policy (version ${privacy}).`);
    const accepted = await rt.prompt.confirm({ message: `Accept the Terms of Service ${terms} and the Privacy Policy ${privacy}?`, flag: "--agree" });
    if (!accepted) throw new UsageError("The terms and privacy policy must be accepted to sign in");
  }
  return { agreed: true, terms_version: terms, privacy_version: privacy };
}

/** Verifies the code; at a terminal a wrong code is asked again while the challenge allows. */
async function finish(
  rt: Runtime,
  client: ConsoleClient,
  attempt: { phone: string; challengeId: string; agreement: Agreement; code: string | undefined },
) {
  let code =
    attempt.code === "-" ? await readStdinLine(rt.io.stdin) : (attempt.code ?? (await rt.prompt.secret({ message: "SMS code", flag: "--code", validate: (v) => (CODE.test(v.trim()) ? undefined : "The code is 6 digits") })));
  for (;;) {
    try {
      return await client.auth.login.mutate({ phone: attempt.phone, challenge_id: attempt.challengeId, code, ...attempt.agreement });
    } catch (error) {
      const failure = apiFailureOf(error);
      const canRetry = failure?.code === "CODE_INCORRECT" && attempt.code === undefined && rt.prompt.interactive;
      if (!canRetry) throw error;
      rt.out.warn(failure.message);
      code = await rt.prompt.secret({ message: "SMS code", flag: "--code", validate: (v) => (CODE.test(v.trim()) ? undefined : "The code is 6 digits") });
    }
  }
}
