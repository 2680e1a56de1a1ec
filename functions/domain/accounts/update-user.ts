/**
 * `PUT /recipe/user` for an email/password recipe user (CDI 5.4, docs/password-reset-and-verification.md):
 * a new email and/or password. One transaction rewrites the user: the email's uniqueness items
 * move (a taken email fails their conditional writes), a primary user's reservations of the email
 * in its tenants move with them (another primary user holding the new email fails it), and the
 * verification states follow the reference, where they are kept per (user id, email): the new
 * email is verified only if (id, new email) was, and the old email keeps its state.
 */

import type { AccountWrites } from '../users/companions.js';
import type { PasswordPorts } from '../users/deps.js';
import type { LoginMethodRecord, UserRecord } from '../users/model.js';
import { writePlan } from '../users/write.js';
import { type AccountsDeps, methodOf, ownerOf, WRITE_ATTEMPTS, withMethod } from './deps.js';
import type { AccountTokenStore } from './ports.js';

export interface UpdateUserInput {
  /** The recipe user id (or its external id). */
  readonly recipeUserId: string;
  /** Normalised (trimmed, lower-cased). */
  readonly email?: string;
  readonly password?: string;
}

export type UpdateUserAnswer =
  | { status: 'OK' }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: string };

const UNKNOWN_USER = { status: 'UNKNOWN_USER_ID_ERROR' } as const;

/**
 * Changes the email and/or password of the emailpassword login method `recipeUserId` names:
 * `UNKNOWN_USER_ID_ERROR` when the id names no user or a user without such a method (a primary
 * user's id names its own method only), `EMAIL_CHANGE_NOT_ALLOWED_ERROR` when the user is primary
 * (or linked) and another primary user of one of its tenants, or another email/password user of
 * one of the method's tenants, has the new email, `EMAIL_ALREADY_EXISTS_ERROR` when the user is
 * neither and an email/password user of one of the method's tenants has it. The password is hashed with
 * the app's algorithm at its configured cost, once, before the first attempt.
 */
export async function updateEmailOrPassword(
  deps: AccountsDeps,
  passwords: Pick<PasswordPorts, 'hash'>,
  input: UpdateUserInput,
): Promise<UpdateUserAnswer> {
  let passwordHash: string | undefined;
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const { ownerId, user } = await ownerOf(deps, input.recipeUserId);
    const method = methodOf(user, ownerId);
    if (!user || method?.recipeId !== 'emailpassword') return UNKNOWN_USER;
    if (input.password !== undefined && passwordHash === undefined) passwordHash = await passwords.hash(input.password);
    const newEmail = input.email !== undefined && input.email !== method.email ? input.email : undefined;
    const account = newEmail === undefined ? undefined : await verificationMove(deps.tokens, user, ownerId, newEmail);
    const after = withMethod(user, ownerId, (lm) => ({
      // A new password completes a migration pending the hook (docs/password-migration-hook.md).
      ...(passwordHash !== undefined ? withoutPendingMark(lm) : lm),
      ...(newEmail !== undefined ? { email: newEmail, verified: account?.newVerified ?? false } : {}),
      ...(passwordHash !== undefined ? { passwordHash } : {}),
    }));
    const result = await writePlan(
      deps.users.store,
      deps.appId,
      { changes: [{ before: user, after }] },
      account ? { account: account.writes } : undefined,
    );
    if (result.ok) return { status: 'OK' };
    const failed = new Set(result.failed.map((e) => e.kind));
    // The reference checks the other primary users first, and refuses a taken email to a primary
    // or linked user as a change not allowed too (a standalone user's is a duplicate).
    if (failed.has('primaryAccountInfo') || (failed.has('uniqueEmail') && user.isPrimaryUser)) {
      return {
        status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
        reason: 'New email is associated with another primary user ID',
      };
    }
    if (failed.has('uniqueEmail')) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
    if (![...failed].every((kind) => kind === 'user' || kind === 'verifiedEmail')) {
      throw new Error(`user update failed: ${[...failed].join(', ')}`);
    }
    // The user or a verified-email item changed since it was read: decide again.
  }
  throw new Error('the user kept changing while it was being updated');
}

/** A login method without its "pending the password-migration hook" mark. */
function withoutPendingMark(lm: LoginMethodRecord): LoginMethodRecord {
  const { passwordMigration: _pending, ...rest } = lm;
  return rest;
}

/**
 * The verification states an email change moves, in the same transaction: the new email's state
 * is (owner, new email)'s, whose item the login method's flag takes over; a verified old email
 * keeps its state as an item. (Also the webauthn email update's: functions/domain/webauthn/email-update.ts.)
 */
export async function verificationMove(
  tokens: Pick<AccountTokenStore, 'isVerifiedEmail'>,
  user: UserRecord,
  ownerId: string,
  newEmail: string,
): Promise<{ newVerified: boolean; writes: AccountWrites }> {
  const method = methodOf(user, ownerId);
  const newRef = { ownerId, email: newEmail };
  const newVerified = await tokens.isVerifiedEmail(newRef);
  const oldVerified = method?.verified === true && method.email !== undefined;
  return {
    newVerified,
    writes: {
      ...(newVerified ? { unverify: [{ ...newRef, mustExist: true }] } : { expectUnverified: [newRef] }),
      ...(oldVerified && method?.email !== undefined ? { verify: [{ ownerId, email: method.email }] } : {}),
    },
  };
}
