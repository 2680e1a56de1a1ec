/**
 * Raised when a hash cannot be computed or checked for a reason that is not the caller's
 * password being wrong (bad cost parameters, an internal failure of a hashing library).
 *
 * Messages are fixed texts chosen here: they never carry the password, the stored hash or a
 * library's own message (which could echo either), and no `cause` is attached for the same reason.
 */
export class PasswordHashingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PasswordHashingError';
  }
}
