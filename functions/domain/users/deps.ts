/**
 * What every user use case is given: the store, the clock and new ids (`UsersDeps`), and, for
 * the use cases that take a password, the hashing and its timing (`PasswordPorts`). Storage and
 * hashing arrive through these, so the use cases stay pure.
 */
import type { UserStore } from './ports.js';

export interface PasswordPorts {
  hash(plain: string): Promise<string>;
  /**
   * 'match' | 'mismatch' | 'unverifiable' (e.g. a Firebase hash without the app's signer key) |
   * 'over-limit' (the stored hash asks for more work than the cost bounds allow; not computed).
   */
  verify(plain: string, storedHash: string): Promise<'match' | 'mismatch' | 'unverifiable' | 'over-limit'>;
  /**
   * The verify of a sign-in that has no stored hash to check: costs what a verify against a hash
   * of the app's algorithm at its configured cost costs, so the answer's timing does not tell
   * whether the email exists.
   */
  dummyVerify(plain: string): Promise<void>;
  /**
   * Whether a stored hash is to be replaced with `hash(password)` after a successful sign-in (a
   * legacy family, or bcrypt/Argon2 below the app's cost, and the app has not turned the upgrade
   * off). Absent: never.
   */
  needsUpgrade?(storedHash: string): boolean;
  /** The clock and floor that hold every failed sign-in to the dummy verify's duration. */
  readonly timing: FailureTiming;
}

/**
 * What holds a failed sign-in to the duration of the dummy verify, whatever the stored hash: a
 * digest checked in microseconds, a bcrypt hash below the app's cost, a hash never computed
 * (beyond the bounds, or unverifiable) or a password refused before any work all answer no sooner
 * than an unknown email does.
 */
interface FailureTiming {
  /** A monotonic clock, in milliseconds. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /**
   * How long the dummy verify takes here, as measured recently (ms); undefined before it has been
   * measured — a failure then runs the dummy verify itself.
   */
  floorMs(): number | undefined;
}

export interface UsersDeps {
  readonly store: UserStore;
  readonly now: () => number;
  readonly newId: () => string;
  readonly warn?: (message: string, fields: Record<string, unknown>) => void;
}
