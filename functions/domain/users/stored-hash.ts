/**
 * The stored-hash strategy of {@link PasswordVerifier}: the password against the login method's
 * stored hash (the algorithm inferred from the hash), an unknown email against the dummy verify,
 * and a legacy hash upgraded after a successful check. A login method pending the
 * password-migration hook has no hash: in an app without a hook it answers 503 until the operator
 * sets one (docs/password-migration-hook.md "Outcomes and answers").
 */
import type { PasswordPorts, UsersDeps } from './deps.js';
import type { UserRecord } from './model.js';
import type { PasswordCheck, PasswordVerifier } from './password-verifier.js';

/** Seconds to wait when the app has no hook for a pending user (the operator must act first). */
const NOT_CONFIGURED_RETRY_AFTER_SECONDS = 60;

const failed = (ranDummy: boolean): PasswordCheck => ({ kind: 'failed', ranDummy, pace: undefined });

export function storedHashVerifier(deps: UsersDeps, passwords: PasswordPorts): PasswordVerifier {
  return {
    async check(target, found, password) {
      const who = { appId: target.appId, tenantId: target.tenantId, recipeUserId: found?.recipeUserId };
      if (found?.method.passwordMigration === 'hook') {
        deps.warn?.('sign-in answered 503: the user is pending the password-migration hook and the app has none', {
          ...who,
          cause: 'not-configured',
        });
        const unavailable = { retryAfterSeconds: NOT_CONFIGURED_RETRY_AFTER_SECONDS };
        return { kind: 'failed', ranDummy: false, pace: { callMs: 0, unavailable } };
      }
      const storedHash = found?.method.passwordHash;
      if (!found || !storedHash) {
        await passwords.dummyVerify(password);
        return failed(true);
      }
      const outcome = await passwords.verify(password, storedHash);
      if (outcome === 'unverifiable') {
        deps.warn?.('sign-in refused: the stored password hash cannot be checked with this app configuration', who);
      } else if (outcome === 'over-limit') {
        deps.warn?.(
          'sign-in refused: the stored password hash asks for more work than the hash cost bounds allow',
          who,
        );
      }
      if (outcome !== 'match') return failed(false);
      if (passwords.needsUpgrade?.(storedHash)) {
        await upgradePasswordHash(deps, passwords, target, found.user, found.recipeUserId, password);
      }
      return { kind: 'match', user: found.user, recipeUserId: found.recipeUserId };
    },
  };
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
