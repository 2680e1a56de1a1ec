/**
 * "Verify a password" as one port with two strategies (docs/password-migration-hook.md): the
 * stored hash (./stored-hash.ts), and, in an app with a password-migration hook, the hook for the
 * login methods imported pending it, the stored hash for every other
 * (functions/domain/password-hook/verifier.ts). Wiring picks the strategy
 * (functions/wiring/password-hook.ts); the sign-in (./sign-in.ts) knows only this port, and holds
 * every failure to the dummy verify's duration itself.
 */
import { ServiceUnavailableError } from '#functions/shared/errors.js';
import type { LoginMethodRecord, UserRecord } from './model.js';

/** The email/password login method a sign-in found by its email. */
export interface FoundMethod {
  readonly user: UserRecord;
  readonly recipeUserId: string;
  readonly method: LoginMethodRecord;
}

/**
 * How a failed sign-in answers so that it cannot be told from a pending user's
 * (docs/password-migration-hook.md "No pending-user oracle").
 */
export interface FailurePace {
  /** How long a pending user's call of the hook would take (0 when none would be made). */
  readonly callMs: number;
  /** Set while the password cannot be checked: the failure is a 503 with this `Retry-After`. */
  readonly unavailable: { readonly retryAfterSeconds: number } | undefined;
}

export type PasswordCheck =
  /** The password is right: the user as stored after the check (a migrated or upgraded hash). */
  | { readonly kind: 'match'; readonly user: UserRecord; readonly recipeUserId: string }
  /**
   * Wrong, unknown or uncheckable: `ranDummy` when the dummy verify already ran (the floor does
   * not run it again), `pace` when the failure must also read as a pending user's.
   */
  | { readonly kind: 'failed'; readonly ranDummy: boolean; readonly pace: FailurePace | undefined };

export interface PasswordVerifier {
  /** Checks `password` for the found login method, or for nobody (`undefined`: an unknown email). */
  check(
    target: { readonly appId: string; readonly tenantId: string },
    found: FoundMethod | undefined,
    password: string,
  ): Promise<PasswordCheck>;
}

/** What a 503 of a password that cannot be checked now says (never the cause: that goes to the log). */
const UNAVAILABLE_MESSAGE = 'The legacy password system is unavailable; retry later';

/** The 503 of a sign-in while the app's legacy password system is unavailable. */
export const passwordCheckUnavailable = (retryAfterSeconds: number) =>
  new ServiceUnavailableError(UNAVAILABLE_MESSAGE, retryAfterSeconds);
