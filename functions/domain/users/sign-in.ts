/**
 * `POST /<t>/recipe/signin`: email and password, checked by the app's {@link PasswordVerifier}
 * (the stored hash, or the password-migration hook for users imported pending it: wiring picks),
 * every failure held to the dummy verify's duration.
 */
import { normaliseEmail } from '#functions/contract/emails.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import type { PasswordPorts, UsersDeps } from './deps.js';
import { externalIdOf, toUserJson, type UserJson } from './model.js';
import {
  type FailurePace,
  type FoundMethod,
  type PasswordVerifier,
  passwordCheckUnavailable,
} from './password-verifier.js';

/** `POST /<t>/recipe/signin`. */
export async function signIn(
  deps: UsersDeps,
  passwords: PasswordPorts,
  target: { appId: string; tenantId: string },
  input: { email: string; password: string },
  verifier: PasswordVerifier,
): Promise<{ status: 'OK'; user: UserJson; recipeUserId: string } | { status: 'WRONG_CREDENTIALS_ERROR' }> {
  const email = normaliseEmail(input.email);
  // An email too long to be stored belongs to no user (and cannot be part of a key).
  const found = canBeStoredEmail(email)
    ? await deps.store.getEmailPasswordUser(target.appId, target.tenantId, email)
    : undefined;
  const method = found?.user.loginMethods.find((lm) => lm.recipeUserId === found.recipeUserId);
  const foundMethod: FoundMethod | undefined = found && method && { ...found, method };
  // Every failure from here on takes at least as long as the dummy verify (failAfterFloor).
  const verifyStarted = passwords.timing.now();
  const check = await verifier.check(target, foundMethod, input.password);
  if (check.kind === 'failed') {
    return failAfterFloor(passwords, verifyStarted, input.password, check.ranDummy, check.pace);
  }
  return {
    status: 'OK',
    user: toUserJson(check.user),
    recipeUserId: externalIdOf(check.user, check.recipeUserId),
  };
}

/**
 * A failure whose verify took less than this share of the dummy verify's duration did next to no
 * work (a digest, a hash never computed, a password refused before any work): it runs the dummy
 * verify for real, which costs what the unknown email's costs under whatever load the function is
 * under, rather than sleeping (a sleep does not slow down with the CPU). Costs up to 110 % of the
 * dummy's that way; above the share, the rest is slept.
 */
const RUN_DUMMY_BELOW_SHARE = 0.1;

/**
 * The answer of a failed sign-in, no sooner than the dummy verify would have given it: a failure
 * that did next to no work runs the dummy verify ({@link RUN_DUMMY_BELOW_SHARE}), and the time
 * spent since `startedAt` (the password step, after the lookup) is then padded up to the dummy's
 * measured duration. Before that duration is known (a fresh execution environment), a failure that
 * has not run the dummy verify runs it, which measures it. A stored hash that costs more than the
 * dummy takes its own time (nothing is added).
 *
 * In an app with a password-migration hook (`pace`; docs/password-migration-hook.md "No
 * pending-user oracle") a failure that did not call the hook also waits as long as a pending
 * user's call would take (`callMs`), and the answer is `WRONG_CREDENTIALS_ERROR` except while the
 * hook is unavailable: then a pending user's sign-in answers the hook's 503, and so does every
 * other failure of the app — an unknown email, a wrong password — with the `Retry-After` a
 * pending user's would get, so that none can be told from a pending user's.
 */
async function failAfterFloor(
  passwords: PasswordPorts,
  startedAt: number,
  password: string,
  ranDummy: boolean,
  pace?: FailurePace,
): Promise<{ status: 'WRONG_CREDENTIALS_ERROR' }> {
  const { timing } = passwords;
  const floor = timing.floorMs();
  if (!ranDummy && (floor === undefined || timing.now() - startedAt < floor * RUN_DUMMY_BELOW_SHARE)) {
    await passwords.dummyVerify(password);
  }
  const target = timing.floorMs();
  if (target !== undefined) {
    const left = target - (timing.now() - startedAt);
    if (left > 0) await timing.sleep(left);
  }
  if (pace && pace.callMs > 0) {
    // A pending user's call under a tenth of the floor is followed by the dummy verify (above),
    // so it adds its whole duration; a longer one takes the place of the floor.
    const quick = target !== undefined && pace.callMs < target * RUN_DUMMY_BELOW_SHARE;
    const left = quick ? pace.callMs : pace.callMs - (timing.now() - startedAt);
    if (left > 0) await timing.sleep(left);
  }
  if (pace?.unavailable) throw passwordCheckUnavailable(pace.unavailable.retryAfterSeconds);
  return { status: 'WRONG_CREDENTIALS_ERROR' };
}

/** Normalising can at most double an email's length (`İ` lower-cases to two characters). */
const canBeStoredEmail = (email: string) => email.length <= 2 * ID_LIMITS.email;

/**
 * Holds a failed password check to the dummy verify's duration, as {@link failAfterFloor} holds a
 * failed sign-in: the dashboard's sign-in (functions/domain/dashboard/service.ts) takes its users'
 * failures through it.
 */
export async function holdFailureToFloor(
  passwords: PasswordPorts,
  startedAt: number,
  password: string,
  ranDummy: boolean,
): Promise<void> {
  await failAfterFloor(passwords, startedAt, password, ranDummy);
}
