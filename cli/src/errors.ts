/**
 * Exit codes (documented in cli/README.md "Exit codes"). Scripts branch on these, so they never change
 * meaning: 0 done; 1 the command line was wrong or something failed locally; 2 the service answered with
 * an error (its code is printed); 3 a login (or another credential) is needed.
 */
export const EXIT = {
  ok: 0,
  usage: 1,
  api: 2,
  auth: 3,
  /** Ctrl-C at a prompt, as shells report SIGINT. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The command line is wrong (unknown flag, missing argument, bad value) or input is missing. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  constructor(
    message: string,
    /** One line telling the user what to do instead. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** The command needs credentials this profile does not hold (nothing was sent to the server). */
export class AuthRequiredError extends Error {
  override readonly name = "AuthRequiredError";
  constructor(
    message: string,
    readonly hint = "Run `ir21 login` first.",
  ) {
    super(message);
  }
}

/**
 * A failure the CLI reports with its own code and exit status 2, e.g. a webhook signature that does not
 * verify. Same shape as a service error so scripts handle both alike.
 */
export class CheckFailed extends Error {
  override readonly name = "CheckFailed";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The user cancelled a prompt (Ctrl-C or Esc). */
export class Interrupted extends Error {
  override readonly name: string = "Interrupted";
  constructor(message = "Cancelled") {
    super(message);
  }
}

/**
 * A long-running command (`ir21 listen`) stopped by Ctrl-C as intended: exit 130 like any interrupt,
 * but its message is a status line, not an error.
 */
export class Stopped extends Interrupted {
  override readonly name = "Stopped";
}
