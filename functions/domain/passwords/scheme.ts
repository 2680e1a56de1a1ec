import type { ParameterProblem } from './limits.js';
import type { VerifyResult } from './result.js';

export interface VerifyPasswordOptions {
  /** The app's `firebase_password_hashing_signer_key` (Base64), if configured. */
  readonly firebaseSignerKey: string | undefined;
}

/** A stored hash read by its scheme: whether its parameters can be run, and how to check a password. */
export interface OpenedHash {
  /** Set when the parameters are beyond a bound or cannot be computed: never call verify then. */
  readonly problem: ParameterProblem | undefined;
  verify(plain: string, options: VerifyPasswordOptions): Promise<VerifyResult>;
}

/**
 * One stored form. Every scheme claims its strings by a prefix no other scheme shares, so the
 * stored string alone says how to verify it (see the table in index.ts).
 */
export interface StoredScheme {
  /** Hashes of the legacy families are replaced by the app's algorithm after a successful sign-in. */
  readonly legacy: boolean;
  claims(stored: string): boolean;
  /** Undefined when the string is not a complete hash of this scheme. */
  open(stored: string): OpenedHash | undefined;
}

export interface SchemeDefinition<P> {
  readonly legacy: boolean;
  claims(stored: string): boolean;
  parse(stored: string): P | undefined;
  check(parsed: P): ParameterProblem | undefined;
  verify(plain: string, parsed: P, options: VerifyPasswordOptions): Promise<VerifyResult>;
}

export function defineScheme<P>(definition: SchemeDefinition<P>): StoredScheme {
  return {
    legacy: definition.legacy,
    claims: (stored) => definition.claims(stored),
    open(stored) {
      const parsed = definition.parse(stored);
      if (parsed === undefined) return undefined;
      return {
        problem: definition.check(parsed),
        verify: (plain, options) => definition.verify(plain, parsed, options),
      };
    },
  };
}
