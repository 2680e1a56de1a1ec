import type { ParameterProblem } from './limits.js';
import type { VerifyResult } from './result.js';

export interface VerifyPasswordOptions {
  /** The app's `firebase_password_hashing_signer_key` (Base64), if configured. */
  readonly firebaseSignerKey: string | undefined;
}

/** How a stored form is read without running its KDF: all the import checks need. */
export interface FormDefinition<P> {
  /** Hashes of the legacy families are replaced by the app's algorithm after a successful sign-in. */
  readonly legacy: boolean;
  claims(stored: string): boolean;
  /** Undefined when the string is not a complete hash of this form. */
  parse(stored: string): P | undefined;
  /** A parameter beyond a bound or one the KDF cannot compute. */
  check(parsed: P): ParameterProblem | undefined;
}

/** A complete hash of a form: its parameters, and whether they can be run. */
interface ReadHash<P> {
  readonly parsed: P;
  /** Set when the parameters are beyond a bound or cannot be computed: never verify then. */
  readonly problem: ParameterProblem | undefined;
}

/**
 * One stored form. Every form claims its strings by a prefix no other form shares, so the stored
 * string alone says how to read and verify it (the table in forms.ts).
 */
export interface StoredForm<P = unknown> {
  readonly legacy: boolean;
  claims(stored: string): boolean;
  /** Undefined when the string is not a complete hash of this form. */
  read(stored: string): ReadHash<P> | undefined;
}

export function defineForm<P>(definition: FormDefinition<P>): StoredForm<P> {
  return {
    legacy: definition.legacy,
    claims: (stored) => definition.claims(stored),
    read(stored) {
      const parsed = definition.parse(stored);
      return parsed === undefined ? undefined : { parsed, problem: definition.check(parsed) };
    },
  };
}

/** Checks a password against a hash of a form, read (and within bounds). */
export type Verify<P> = (plain: string, parsed: P, options: VerifyPasswordOptions) => Promise<VerifyResult>;

/** A stored hash read by its scheme: whether its parameters can be run, and how to check a password. */
interface OpenedHash {
  /** Set when the parameters are beyond a bound or cannot be computed: never call verify then. */
  readonly problem: ParameterProblem | undefined;
  verify(plain: string, options: VerifyPasswordOptions): Promise<VerifyResult>;
}

/** A stored form with its verification (schemes.ts): what sign-in needs. */
export interface StoredScheme {
  readonly form: StoredForm;
  readonly legacy: boolean;
  claims(stored: string): boolean;
  /** Undefined when the string is not a complete hash of this scheme. */
  open(stored: string): OpenedHash | undefined;
}

export function defineScheme<P>(form: StoredForm<P>, verify: Verify<P>): StoredScheme {
  return {
    form,
    legacy: form.legacy,
    claims: (stored) => form.claims(stored),
    open(stored) {
      const read = form.read(stored);
      if (read === undefined) return undefined;
      return { problem: read.problem, verify: (plain, options) => verify(plain, read.parsed, options) };
    },
  };
}
