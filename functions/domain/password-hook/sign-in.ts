/**
 * Sign-in of an email/password login method pending the password-migration hook
 * (docs/password-migration-hook.md "Outcomes and answers"). The hook checks the password; on a match the
 * password is hashed with the app's algorithm at its configured cost and stored in one write that
 * applies only if the user is still as it was read (still pending): two first sign-ins at once
 * store one hash, and a password changed in between is never overwritten — the loser reads the
 * user again and verifies the password against what is stored then. When the legacy system is
 * unavailable the answer is a 503 with `Retry-After` (thrown by the sign-in once the failure
 * is held to the floor, users/sign-in.ts), never "wrong credentials", and the user stays pending.
 */
import { ServiceUnavailableError } from '#functions/shared/errors.js';
import type { LoginMethodRecord, UserRecord } from '../users/model.js';
import type { UserStore } from '../users/ports.js';
import { writePlan } from '../users/write.js';
import { checkPasswordWithHook, type PasswordHookPorts, refusesRequest } from './check.js';

export interface PendingSignInDeps {
  readonly store: UserStore;
  readonly warn?: (message: string, fields: Record<string, unknown>) => void;
  /** The app's algorithm at its configured cost. */
  hash(plain: string): Promise<string>;
  verify(plain: string, storedHash: string): Promise<string>;
}

/** What a 503 of an unavailable hook says (never the cause: that goes to the log). */
const HOOK_UNAVAILABLE_MESSAGE = 'The legacy password system is unavailable; retry later';

/** The 503 of a sign-in while the app's legacy password system is unavailable. */
export const hookUnavailableError = (retryAfterSeconds: number) =>
  new ServiceUnavailableError(HOOK_UNAVAILABLE_MESSAGE, retryAfterSeconds);

/** Seconds to wait when the app has no hook for a pending user (the operator must act first). */
const NOT_CONFIGURED_RETRY_AFTER_SECONDS = 60;

const WRITE_ATTEMPTS = 3;

/**
 * `ok` with the user as stored after the sign-in, `wrong` (the hook said mismatch, or the
 * password stored meanwhile does not match), or `unavailable` with the `Retry-After` to answer
 * (the hook is unavailable or not configured).
 */
export async function signInPendingMethod(
  deps: PendingSignInDeps,
  hook: PasswordHookPorts | undefined,
  target: { appId: string; tenantId: string },
  found: { user: UserRecord; recipeUserId: string },
  password: string,
): Promise<{ kind: 'ok'; user: UserRecord } | { kind: 'wrong' } | { kind: 'unavailable'; retryAfterSeconds: number }> {
  const who = { appId: target.appId, tenantId: target.tenantId, recipeUserId: found.recipeUserId };
  const method = methodOf(found.user, found.recipeUserId);
  if (!hook) {
    deps.warn?.('sign-in answered 503: the user is pending the password-migration hook and the app has none', {
      ...who,
      cause: 'not-configured',
    });
    return { kind: 'unavailable', retryAfterSeconds: NOT_CONFIGURED_RETRY_AFTER_SECONDS };
  }
  const { verdict, retryAfterSeconds } = await checkPasswordWithHook(hook, {
    appId: target.appId,
    tenantId: target.tenantId,
    userId: found.user.userId,
    externalUserId:
      found.user.externalIds[found.recipeUserId]?.externalUserId ??
      found.user.externalIds[found.user.userId]?.externalUserId ??
      null,
    email: method?.email ?? '',
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
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
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
    const again = await deps.store.getUserBySuperTokensId(target.appId, found.recipeUserId);
    if (!again) return { kind: 'wrong' };
    user = again;
  }
  throw new Error('the user kept changing while its migrated password was being stored');
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
