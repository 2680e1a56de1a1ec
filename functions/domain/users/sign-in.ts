/**
 * `POST /<t>/recipe/signin`: email and password against the stored hash, every failure held to
 * the dummy verify's duration, and a legacy hash upgraded after a successful sign-in.
 */
import { normaliseEmail } from '#functions/contract/emails.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import { type PasswordHookPorts, type PendingPace, pendingPace } from '../password-hook/check.js';
import { hookUnavailableError, signInPendingMethod } from '../password-hook/sign-in.js';
import type { PasswordPorts, UsersDeps } from './deps.js';
import { externalIdOf, toUserJson, type UserJson, type UserRecord } from './model.js';

/** `POST /<t>/recipe/signin`. */
export async function signIn(
  deps: UsersDeps,
  passwords: PasswordPorts,
  target: { appId: string; tenantId: string },
  input: { email: string; password: string },
  /** The app's password-migration hook, for users imported pending it (docs/password-migration-hook.md). */
  hook?: PasswordHookPorts,
): Promise<{ status: 'OK'; user: UserJson; recipeUserId: string } | { status: 'WRONG_CREDENTIALS_ERROR' }> {
  const email = normaliseEmail(input.email);
  // An email too long to be stored belongs to no user (and cannot be part of a key).
  const found = canBeStoredEmail(email)
    ? await deps.store.getEmailPasswordUser(target.appId, target.tenantId, email)
    : undefined;
  const method = found?.user.loginMethods.find((lm) => lm.recipeUserId === found.recipeUserId);
  // Every failure from here on takes at least as long as the dummy verify (failAfterFloor).
  const verifyStarted = passwords.timing.now();
  if (found && method?.passwordMigration === 'hook') {
    const ports = { store: deps.store, warn: deps.warn, hash: passwords.hash, verify: passwords.verify };
    const pending = await signInPendingMethod(ports, hook, target, found, input.password);
    if (pending.kind === 'unavailable') {
      const unavailable = { retryAfterSeconds: pending.retryAfterSeconds };
      return failAfterFloor(passwords, verifyStarted, input.password, false, { callMs: 0, unavailable });
    }
    if (pending.kind === 'wrong') {
      // Its own call is behind it; the outage is judged after it (an answer ends one).
      const after = hook ? { callMs: 0, unavailable: pendingPace(hook).unavailable } : undefined;
      return failAfterFloor(passwords, verifyStarted, input.password, false, after);
    }
    const user = toUserJson(pending.user);
    return { status: 'OK', user, recipeUserId: externalIdOf(pending.user, method.recipeUserId) };
  }
  // What a pending user's sign-in would go through, judged when its check would start.
  const pace = hook && pendingPace(hook);
  if (!found || !method?.passwordHash) {
    await passwords.dummyVerify(input.password);
    return failAfterFloor(passwords, verifyStarted, input.password, true, pace);
  }
  const outcome = await passwords.verify(input.password, method.passwordHash);
  const who = { appId: target.appId, tenantId: target.tenantId, recipeUserId: method.recipeUserId };
  if (outcome === 'unverifiable') {
    deps.warn?.('sign-in refused: the stored password hash cannot be checked with this app configuration', who);
  } else if (outcome === 'over-limit') {
    deps.warn?.('sign-in refused: the stored password hash asks for more work than the hash cost bounds allow', who);
  }
  if (outcome !== 'match') return failAfterFloor(passwords, verifyStarted, input.password, false, pace);
  if (passwords.needsUpgrade?.(method.passwordHash)) {
    await upgradePasswordHash(deps, passwords, target, found.user, method.recipeUserId, input.password);
  }
  return {
    status: 'OK',
    user: toUserJson(found.user),
    recipeUserId: externalIdOf(found.user, method.recipeUserId),
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
  pace?: PendingPace,
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
  if (pace?.unavailable) throw hookUnavailableError(pace.unavailable.retryAfterSeconds);
  return { status: 'WRONG_CREDENTIALS_ERROR' };
}

/**
 * The step after a successful sign-in against a legacy hash: the password, hashed with the app's
 * algorithm at its configured cost, replaces the legacy hash, in a write that applies only if the
 * stored hash is still the one just verified (a password changed meanwhile is never overwritten;
 * the next sign-in verifies whatever is stored then). It never fails the sign-in: a failure is
 * logged without the hash or the password, and the legacy hash stays until a later sign-in.
 */
async function upgradePasswordHash(
  deps: UsersDeps,
  passwords: PasswordPorts,
  target: { appId: string; tenantId: string },
  user: UserRecord,
  recipeUserId: string,
  password: string,
): Promise<void> {
  try {
    const replacement = await passwords.hash(password);
    await deps.store.replacePasswordHash(target.appId, user, recipeUserId, replacement);
  } catch (error) {
    deps.warn?.('sign-in succeeded but its legacy password hash could not be upgraded; it is kept as it was', {
      appId: target.appId,
      tenantId: target.tenantId,
      recipeUserId,
      reason: error instanceof Error ? error.name : 'unknown',
    });
  }
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
