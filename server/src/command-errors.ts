/** A mistake in how an `ir21-server` command was called: printed without a stack, exit status 64. */
export class UsageError extends Error {
  override name = "UsageError";
}
