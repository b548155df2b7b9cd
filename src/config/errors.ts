/**
 * A mistake the user can fix (bad flag value, unreadable file, unreachable seed). The CLI prints
 * its message as one line and exits 2; anything else is a bug and keeps its stack trace.
 */
export class UserError extends Error {
  override name = 'UserError';
}
