/**
 * The password-migration hook's strategy of the sign-in's password check
 * (functions/domain/users/password-verifier.ts; docs/password-migration-hook.md "Outcomes and
 * answers"): a login method pending the hook has its password checked by the hook; on a match the
 * password is hashed with the app's algorithm at its configured cost and stored in one write that
 * applies only if the user is still as it was read (still pending): two first sign-ins at once
 * store one hash, and a password changed in between is never overwritten — the loser reads the
 * user again and verifies the password against what is stored then. When the legacy system is
 * unavailable the answer is a 503 with `Retry-After`, never "wrong credentials", and the user
 * stays pending. Every other sign-in of the app goes to the stored hash, paced as a pending
 * user's would be ("No pending-user oracle").
 */
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { LoginMethodRecord, UserRecord } from '../users/model.js';
import type { FoundMethod, PasswordVerifier } from '../users/password-verifier.js';
import type { UserStore } from '../users/ports.js';
import { writePlan } from '../users/write.js';
import { checkPasswordWithHook, type PasswordHookPorts, pendingPace, refusesRequest } from './check.js';

export interface PendingSignInDeps {
  readonly store: UserStore;
  readonly warn?: (message: string, fields: Record<string, unknown>) => void;
  /** The app's algorithm at its configured cost. */
  hash(plain: string): Promise<string>;
  verify(plain: string, storedHash: string): Promise<string>;
}

/** The write of a migrated password, read again when the user changed since it was read. */
const MIGRATED_PASSWORD_WRITE: RereadPolicy = {
  attempts: 3,
  exhausted: 'the user kept changing while its migrated password was being stored',
  error: Error,
};

/**
 * The strategy of an app with a hook: a login method pending it is checked by the hook, every
 * other sign-in by `storedHash`, its failure paced as a pending user's would be — judged when its
 * check starts — so that it cannot be told from one.
 */
export function migrationHookVerifier(
  deps: PendingSignInDeps,
  hook: PasswordHookPorts,
  storedHash: PasswordVerifier,
): PasswordVerifier {
  return {
    async check(target, found, password) {
      if (found?.method.passwordMigration !== 'hook') {
        const pace = pendingPace(hook);
        const check = await storedHash.check(target, found, password);
        return check.kind === 'failed' ? { ...check, pace } : check;
      }
      const pending = await signInPendingMethod(deps, hook, target, found, password);
      if (pending.kind === 'ok') return { kind: 'match', user: pending.user, recipeUserId: found.recipeUserId };
      if (pending.kind === 'unavailable') {
        const unavailable = { retryAfterSeconds: pending.retryAfterSeconds };
        return { kind: 'failed', ranDummy: false, pace: { callMs: 0, unavailable } };
      }
      // Its own call is behind it; the outage is judged after it (an answer ends one).
      return { kind: 'failed', ranDummy: false, pace: { callMs: 0, unavailable: pendingPace(hook).unavailable } };
    },
  };
}

/**
 * `ok` with the user as stored after the sign-in, `wrong` (the hook said mismatch, or the
 * password stored meanwhile does not match), or `unavailable` with the `Retry-After` to answer
 * (the hook is unavailable).
 */
async function signInPendingMethod(
  deps: PendingSignInDeps,
  hook: PasswordHookPorts,
  target: { appId: string; tenantId: string },
  found: FoundMethod,
  password: string,
): Promise<{ kind: 'ok'; user: UserRecord } | { kind: 'wrong' } | { kind: 'unavailable'; retryAfterSeconds: number }> {
  const who = { appId: target.appId, tenantId: target.tenantId, recipeUserId: found.recipeUserId };
  const { method } = found;
  const { verdict, retryAfterSeconds } = await checkPasswordWithHook(hook, {
    appId: target.appId,
    tenantId: target.tenantId,
    userId: found.user.userId,
    externalUserId:
      found.user.externalIds[found.recipeUserId]?.externalUserId ??
      found.user.externalIds[found.user.userId]?.externalUserId ??
      null,
    email: method.email ?? '',
    password,
  });
  if (refusesRequest(verdict)) {
    deps.warn?.('sign-in refused: the password-migration hook refused the request for its content', {
      ...who,
      cause: 'status',
      status: verdict.kind === 'unavailable' ? verdict.status : undefined,
    });
    return { kind: 'wrong' };
  }
  if (verdict.kind === 'unavailable') {
    deps.warn?.('sign-in answered 503: the password-migration hook is unavailable', { ...who, cause: verdict.cause });
    return { kind: 'unavailable', retryAfterSeconds };
  }
  if (verdict.kind === 'mismatch') return { kind: 'wrong' };
  const passwordHash = await deps.hash(password);
  let user = found.user;
  return reread(MIGRATED_PASSWORD_WRITE, async (attempt) => {
    if (attempt > 0) {
      const again = await deps.store.getUserBySuperTokensId(target.appId, found.recipeUserId);
      if (!again) return { kind: 'wrong' };
      user = again;
    }
    const current = methodOf(user, found.recipeUserId);
    if (!current) return { kind: 'wrong' };
    if (current.passwordMigration !== 'hook') {
      // Migrated or changed meanwhile: what is stored now decides.
      if (current.passwordHash === undefined) return { kind: 'wrong' };
      return (await deps.verify(password, current.passwordHash)) === 'match' ? { kind: 'ok', user } : { kind: 'wrong' };
    }
    const after = migrated(user, found.recipeUserId, passwordHash);
    const result = await writePlan(deps.store, target.appId, {
      changes: [{ before: user, after }],
      passwordsMigratedByHook: 1,
    });
    if (result.ok) return { kind: 'ok', user: after };
    if (!result.failed.every((e) => e.kind === 'user')) {
      throw new Error(`the migrated password could not be stored: ${result.failed.map((e) => e.kind).join(', ')}`);
    }
    return READ_AGAIN;
  });
}

const methodOf = (user: UserRecord, recipeUserId: string) =>
  user.loginMethods.find((lm) => lm.recipeUserId === recipeUserId);

/** The user with the method's pending mark replaced by the hash. */
function migrated(user: UserRecord, recipeUserId: string, passwordHash: string): UserRecord {
  return {
    ...user,
    version: user.version + 1,
    loginMethods: user.loginMethods.map((lm): LoginMethodRecord => {
      if (lm.recipeUserId !== recipeUserId) return lm;
      const { passwordMigration: _pending, ...rest } = lm;
      return { ...rest, passwordHash };
    }),
  };
}
