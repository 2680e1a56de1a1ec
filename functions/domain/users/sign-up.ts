/** `POST /<t>/recipe/signup`: a new emailpassword user, unique by email in its tenant. */
import { normaliseEmail } from '#functions/contract/emails.js';
import type { PasswordPorts, UsersDeps } from './deps.js';
import { newRecipeUser, toUserJson, type UserJson } from './model.js';
import type { WriteEntity } from './ports.js';
import { writePlan } from './write.js';

/** `POST /<t>/recipe/signup`: a new, non-primary emailpassword user in the path's tenant. */
export async function signUp(
  deps: UsersDeps,
  passwords: PasswordPorts,
  target: { appId: string; tenantId: string },
  input: { email: string; password: string },
): Promise<{ status: 'OK'; user: UserJson; recipeUserId: string } | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }> {
  const email = normaliseEmail(input.email);
  // Cheap early answer; the conditional write below is what actually guarantees uniqueness.
  if (await deps.store.getEmailPasswordUser(target.appId, target.tenantId, email)) {
    return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
  }
  const passwordHash = await passwords.hash(input.password);
  const userId = deps.newId();
  const { user } = newRecipeUser(userId, deps.now(), target.tenantId, {
    recipeId: 'emailpassword',
    verified: false,
    email,
    passwordHash,
  });
  const result = await writePlan(deps.store, target.appId, { changes: [{ after: user }] });
  if (!result.ok) {
    if (result.failed.some((e) => e.kind === 'uniqueEmail')) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
    throw new Error(`sign-up write failed: ${describeEntities(result.failed)}`);
  }
  return { status: 'OK', user: toUserJson(user), recipeUserId: userId };
}

function describeEntities(entities: readonly WriteEntity[]): string {
  return entities.map((e) => e.kind).join(', ');
}
