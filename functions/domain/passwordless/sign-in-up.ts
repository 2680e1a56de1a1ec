/**
 * `POST /<t>/recipe/signinup/code/consume`: the code is consumed (functions/domain/passwordless/code-check.ts),
 * then the passwordless user of the device's email or phone number signs in, or one is signed up
 * (docs/passwordless.md "Consuming").
 */
import type { UsersDeps } from '#functions/domain/users/deps.js';
import {
  externalIdOf,
  type LoginMethodRecord,
  newRecipeUser,
  toUserJson,
  type UserJson,
  type UserRecord,
} from '#functions/domain/users/model.js';
import { writePlan } from '#functions/domain/users/write.js';
import { READ_AGAIN, reread } from '#functions/shared/rereads.js';
import { type CodeFailure, verifyCode } from './code-check.js';
import { enabledTenant, type PasswordlessDeps, type PasswordlessTarget, RESTART_FLOW, rounds } from './deps.js';
import { deviceJson, removeDevicesOfContacts } from './devices.js';
import { type Contact, contactOf, type PasswordlessDevice, type TenantRef } from './model.js';
import type { CodeInput } from './requests.js';

export type ConsumeCodeAnswer =
  | {
      status: 'OK';
      createdNewUser: boolean;
      user: UserJson;
      recipeUserId: string;
      consumedDevice: ReturnType<typeof deviceJson>;
    }
  | CodeFailure;

/**
 * `POST /<t>/recipe/signinup/code/consume`: consumes the code (see `verifyCode`), then signs in the
 * passwordless user of the device's email or phone number in this tenant — imported users
 * included — or signs one up: a new, non-primary recipe user created in one transaction that
 * claims the email's or phone number's uniqueness in the tenant. A sign-in marks the email
 * verified (the code reached it); a sign-up through an email starts verified.
 */
export async function consumeCode(
  deps: PasswordlessDeps,
  users: UsersDeps,
  target: PasswordlessTarget,
  input: CodeInput,
): Promise<ConsumeCodeAnswer> {
  const tenant = enabledTenant(target);
  const verified = await verifyCode(deps, tenant, input, true);
  if (verified.status !== 'OK') return verified;
  const { device } = verified;
  const signedIn = await signInOrUp(deps, users, tenant, device);
  if (!signedIn) return RESTART_FLOW;
  const { user, method, createdNewUser } = signedIn;
  return {
    status: 'OK',
    createdNewUser,
    user: toUserJson(user),
    recipeUserId: externalIdOf(user, method.recipeUserId),
    consumedDevice: deviceJson(device),
  };
}

/** The passwordless login method of this email or phone number in the tenant, with its user. */
async function findPasswordlessUser(
  users: UsersDeps,
  tenant: TenantRef,
  contact: Contact,
): Promise<{ user: UserRecord; method: LoginMethodRecord } | undefined> {
  const query = contact.email !== undefined ? { email: contact.email } : { phoneNumber: contact.phoneNumber as string };
  const [candidates = []] = await users.store.usersByAccountInfo(tenant.appId, tenant.tenantId, query);
  for (const user of candidates) {
    const method = user.loginMethods.find(
      (lm) =>
        lm.recipeId === 'passwordless' &&
        lm.tenantIds.includes(tenant.tenantId) &&
        (contact.email !== undefined ? lm.email === contact.email : lm.phoneNumber === contact.phoneNumber),
    );
    if (method) return { user, method };
  }
  return undefined;
}

/**
 * The user a consumed device signs in, created when there is none. Undefined when a user of that
 * email or phone number kept appearing and disappearing under it (the reference answers
 * `RESTART_FLOW_ERROR` when its create hits a duplicate).
 */
async function signInOrUp(
  deps: PasswordlessDeps,
  users: UsersDeps,
  tenant: TenantRef,
  device: PasswordlessDevice,
): Promise<{ user: UserRecord; method: LoginMethodRecord; createdNewUser: boolean } | undefined> {
  const policy = { ...rounds('a user of the contact kept changing at sign-in'), orElse: () => undefined };
  return reread(policy, async () => {
    const found = await findPasswordlessUser(users, tenant, device);
    if (!found) {
      const created = newPasswordlessUser(users, tenant, device);
      const result = await writePlan(users.store, tenant.appId, { changes: [{ after: created.user }] });
      if (result.ok) return { ...created, createdNewUser: true };
      // Someone signed up the same email or phone number meanwhile (read it next round), or the
      // fresh id was taken (draw another); anything else is not this flow's to handle.
      if (result.failed.some((e) => e.kind !== 'uniqueEmail' && e.kind !== 'uniquePhone' && e.kind !== 'user')) {
        throw new Error(`passwordless sign-up write failed: ${result.failed.map((e) => e.kind).join(', ')}`);
      }
      return READ_AGAIN;
    }
    let { user, method } = found;
    if (device.email !== undefined && !method.verified) {
      const after: UserRecord = {
        ...user,
        loginMethods: user.loginMethods.map((lm) => (lm === method ? { ...lm, verified: true } : lm)),
        version: user.version + 1,
      };
      const result = await writePlan(users.store, tenant.appId, { changes: [{ before: user, after }] });
      if (!result.ok) return READ_AGAIN; // the user changed since it was read
      user = after;
      method = after.loginMethods.find((lm) => lm.recipeUserId === method.recipeUserId) as LoginMethodRecord;
    }
    // The user's other contact may have devices of its own: the reference removes them too.
    await removeDevicesOfContacts(deps.store, tenant, {
      email: method.email !== device.email ? method.email : undefined,
      phoneNumber: method.phoneNumber !== device.phoneNumber ? method.phoneNumber : undefined,
    });
    return { user, method, createdNewUser: false };
  });
}

function newPasswordlessUser(
  users: UsersDeps,
  tenant: TenantRef,
  device: PasswordlessDevice,
): { user: UserRecord; method: LoginMethodRecord } {
  return newRecipeUser(users.newId(), users.now(), tenant.tenantId, {
    recipeId: 'passwordless',
    // The code reached the email: it is verified (the reference, CDI ≥ 4.0). A phone number has no email.
    verified: device.email !== undefined,
    ...contactOf(device),
  });
}
