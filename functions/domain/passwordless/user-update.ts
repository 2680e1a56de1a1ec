/**
 * The passwordless branch of `PUT /recipe/user` (supertokens-node's `Passwordless.updateUser`,
 * sent with `rid: passwordless`): change or clear a passwordless login method's email and phone
 * number. The reference routes `PUT /recipe/user` by its `rid` header to the email/password or the
 * passwordless implementation; this module is the latter, for the route's handler to call.
 */
import { normaliseEmail } from '#functions/contract/emails.js';
import { normalisePhoneNumber } from '#functions/contract/phone-numbers.js';
import { resolveUser } from '#functions/domain/users/lookup.js';
import type { UserRecord } from '#functions/domain/users/model.js';
import { writePlan } from '#functions/domain/users/write.js';
import { cdiAtLeast } from '#functions/shared/cdi.js';
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { has, requiredString } from '#functions/shared/input.js';
import { READ_AGAIN, reread } from '#functions/shared/rereads.js';
import { removeDevicesOfLoginMethods } from './devices.js';
import type { UserRemovalDeps } from './user-removal.js';

/** A field update: absent = unchanged, `null` = cleared, a string = the new value. */
export interface PasswordlessUserUpdate {
  readonly recipeUserId: string;
  readonly email?: string | null;
  readonly phoneNumber?: string | null;
}

/** `null`, or a string (anything else: `Field name '<f>' is invalid in JSON input`). */
function stringOrNull(body: Readonly<Record<string, unknown>>, name: string): string | null {
  const value = body[name];
  if (value === null) return null;
  if (typeof value !== 'string') throw new BadRequestError(invalidFieldMessage(name));
  return value;
}

/**
 * The body of `PUT /recipe/user` for a passwordless user: `recipeUserId` (`userId` before CDI
 * 4.0), and `email` and/or `phoneNumber`, each a string or `null`. Emails and phone numbers are
 * normalised as everywhere in the core.
 */
export function parsePasswordlessUserUpdate(
  body: Readonly<Record<string, unknown>>,
  cdiVersion: string,
): PasswordlessUserUpdate {
  const recipeUserId = requiredString(body, cdiAtLeast(cdiVersion, '4.0') ? 'recipeUserId' : 'userId');
  const update: { recipeUserId: string; email?: string | null; phoneNumber?: string | null } = { recipeUserId };
  if (has(body, 'email')) {
    const email = stringOrNull(body, 'email');
    if (email !== null) checkIdLength('email', email.trim());
    update.email = email === null ? null : normaliseEmail(email);
  }
  if (has(body, 'phoneNumber')) {
    const phoneNumber = stringOrNull(body, 'phoneNumber');
    if (phoneNumber !== null) checkIdLength('phoneNumber', phoneNumber.trim());
    update.phoneNumber = phoneNumber === null ? null : normalisePhoneNumber(phoneNumber);
  }
  return update;
}

export type PasswordlessUserUpdateAnswer =
  | { status: 'OK' }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: string }
  | { status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR'; reason: string };

const UPDATE_ROUNDS = { attempts: 5, exhausted: 'passwordless user update kept conflicting with concurrent changes' };

/**
 * Updates the email and/or phone number of the passwordless login method `recipeUserId` (a
 * SuperTokens or external id). One user write: the new values' uniqueness in each of the login
 * method's tenants (and, for a primary or linked user, no other primary user holding them) is
 * checked by the write's conditions, so a taken email or number changes nothing. A taken value is
 * `…_ALREADY_EXISTS_ERROR` for a standalone user, `…_CHANGE_NOT_ALLOWED_ERROR` for a primary or
 * linked one (the reference's order of checks). A changed email
 * is unverified. Afterwards the devices of the old and new email and number are removed in the
 * login method's tenants (codes sent to a contact the user no longer has, or to one it now has,
 * no longer sign anyone in). Clearing both: 400.
 */
export async function updatePasswordlessUser(
  deps: Pick<UserRemovalDeps, 'users' | 'passwordless'>,
  appId: string,
  input: PasswordlessUserUpdate,
): Promise<PasswordlessUserUpdateAnswer> {
  return reread(UPDATE_ROUNDS, async (): Promise<PasswordlessUserUpdateAnswer | typeof READ_AGAIN> => {
    const found = await resolveUser(deps.users, appId, input.recipeUserId);
    const method = found?.user.loginMethods.find(
      (lm) => lm.recipeUserId === found.superTokensId && lm.recipeId === 'passwordless',
    );
    if (!found || !method) return { status: 'UNKNOWN_USER_ID_ERROR' };
    const email = input.email === undefined ? method.email : (input.email ?? undefined);
    const phoneNumber = input.phoneNumber === undefined ? method.phoneNumber : (input.phoneNumber ?? undefined);
    if (email === undefined && phoneNumber === undefined) {
      throw new BadRequestError('You cannot clear both email and phone number of a user');
    }
    const { email: _email, phoneNumber: _phone, ...rest } = method;
    const changed = {
      ...rest,
      ...(email !== undefined ? { email } : {}),
      ...(phoneNumber !== undefined ? { phoneNumber } : {}),
      verified: email !== undefined && email === method.email && method.verified,
    };
    const after: UserRecord = {
      ...found.user,
      loginMethods: found.user.loginMethods.map((lm) => (lm === method ? changed : lm)),
      version: found.user.version + 1,
    };
    const result = await writePlan(deps.users.store, appId, { changes: [{ before: found.user, after }] });
    if (result.ok) {
      const contacts = [
        ...(email !== method.email ? [{ email: method.email }, { email }] : []),
        ...(phoneNumber !== method.phoneNumber ? [{ phoneNumber: method.phoneNumber }, { phoneNumber }] : []),
      ];
      await removeDevicesOfLoginMethods(
        deps.passwordless,
        appId,
        contacts.map((contact) => ({ ...contact, tenantIds: method.tenantIds })),
      );
      return { status: 'OK' };
    }
    const kinds = new Set(result.failed.map((e) => e.kind));
    if (!found.user.isPrimaryUser) {
      if (kinds.has('uniqueEmail')) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
      if (kinds.has('uniquePhone')) return { status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' };
    } else if (kinds.has('uniqueEmail') || kinds.has('uniquePhone') || kinds.has('primaryAccountInfo')) {
      // A primary or linked user: whatever holds the new email or number (another passwordless
      // user of a tenant, another primary user), the change is not allowed — the email's first,
      // as the reference updates the email before the phone number.
      const emailRefused =
        kinds.has('uniqueEmail') ||
        (kinds.has('primaryAccountInfo') &&
          email !== undefined &&
          email !== method.email &&
          (phoneNumber === method.phoneNumber || (await heldByAnotherPrimary(deps, appId, found.user, { email }))));
      return emailRefused
        ? { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'New email is associated with another primary user ID' }
        : {
            status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR',
            reason: 'New phone number is associated with another primary user ID',
          };
    }
    // The user changed since it was read (its version guard): read it again.
    return READ_AGAIN;
  });
}

/** Whether another primary user holds this email or number in one of the user's tenants. */
async function heldByAnotherPrimary(
  deps: Pick<UserRemovalDeps, 'users'>,
  appId: string,
  user: UserRecord,
  info: { email: string } | { phoneNumber: string },
): Promise<boolean> {
  const tenants = [...new Set(user.loginMethods.flatMap((lm) => lm.tenantIds))];
  const holders = await deps.users.store.primaryUsersHolding(
    appId,
    tenants.map((tenantId) => ({ tenantId, ...info })),
  );
  return holders.some((holder) => holder !== undefined && holder !== user.userId);
}
