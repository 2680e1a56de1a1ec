/**
 * Account linking (`/recipe/accountlinking/user/…`), with the reference core's rules and answers
 * (docs/thirdparty-and-account-linking.md):
 *
 * - a primary user reserves each account info (email, phone number, third-party id) of each of
 *   its login methods in each of its tenants; no two primary users hold the same account info in
 *   a tenant they share;
 * - a recipe user can become primary, or be linked under a primary user, only if no other primary
 *   user holds one of the account infos concerned in one of the tenants concerned (for a link: the
 *   union of both users' tenants, the recipe user's login method and every login method of the
 *   primary user);
 * - a recipe user already primary, or already linked, is not linked again elsewhere.
 *
 * The checks are reads (they word the answer: which primary user, which account info); what makes
 * them hold is the write: the reservations are conditional writes in the same transaction as the
 * records' rewrite, each record guarded by its version. A write that loses a race is planned again
 * from fresh reads, which then give the answer.
 */

import type { SessionStore } from '#functions/domain/sessions/ports.js';
import type { UsersDeps } from '#functions/domain/users/deps.js';
import { resolveUser } from '#functions/domain/users/lookup.js';
import { externalIdOf, toUserJson, type UserJson, type UserRecord } from '#functions/domain/users/model.js';
import type { UserWritePlan } from '#functions/domain/users/ports.js';
import { writePlan } from '#functions/domain/users/write.js';
import { BackpressureError, BadRequestError, CoreHttpError } from '#functions/shared/errors.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import {
  type AccountInfoCheck,
  accountInfoChecks,
  asPrimary,
  asRecipeUser,
  CONFLICT_DESCRIPTIONS,
  linked,
  standalone,
  without,
} from './records.js';

const UNKNOWN_USER_MESSAGE = 'Unknown user ID provided';
const LINKING_DISABLED_MESSAGE =
  'Account linking feature is not enabled for this app. Please contact support to enable it.';
const ALREADY_LINKED_TO_PRIMARY = 'This user ID is already linked to another user ID';
const ALREADY_LINKED_TO_ANOTHER = 'The input recipe user ID is already linked to another user ID';

/** 402: the app has account linking (and MFA, which implies it) switched off. */
class AccountLinkingDisabledError extends CoreHttpError {
  constructor() {
    super(402, LINKING_DISABLED_MESSAGE);
  }
}

/** Writes planned again after losing a race (a record changed, a reservation taken meanwhile). */
const ATTEMPTS = 5;

/** What linking and unlinking need besides the users: the app's sessions. */
export interface LinkingDeps extends UsersDeps {
  readonly sessions: SessionStore;
}

/**
 * Ends the sessions created for a recipe user (sessions are kept under the recipe user id they were
 * created for: its external id where mapped). The reference does this after a link and an unlink:
 * the recipe user's user id changed, so tokens naming the old one must not live on. Sessions of
 * the group's other login methods are left alone.
 */
async function endSessionsOf(sessions: SessionStore, appId: string, recipeUserId: string) {
  const handles = await sessions.handlesOfUser(appId, recipeUserId, undefined);
  if (handles.length > 0) await sessions.remove(appId, handles);
}

export interface LinkingTarget {
  readonly appId: string;
  /** The app's `account_linking_enabled` or `mfa_enabled` switch (the reference's licence check). */
  readonly linkingEnabled: boolean;
}

/** The reference's refusals that name the primary user in the way, with its description. */
type PrimaryUserError<Status extends string> = { status: Status; primaryUserId: string; description: string };

type AccountInfoConflict = PrimaryUserError<'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'>;

type LinkedToPrimary = PrimaryUserError<'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR'>;

export type CanCreatePrimaryAnswer =
  | { status: 'OK'; wasAlreadyAPrimaryUser: boolean }
  | LinkedToPrimary
  | AccountInfoConflict;

export type CreatePrimaryAnswer =
  | { status: 'OK'; wasAlreadyAPrimaryUser: boolean; user: UserJson }
  | LinkedToPrimary
  | AccountInfoConflict;

type LinkedToAnother = PrimaryUserError<'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'>;

export type CanLinkAnswer =
  | { status: 'OK'; accountsAlreadyLinked: boolean }
  | LinkedToAnother
  | AccountInfoConflict
  | { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' };

export type LinkAnswer =
  | { status: 'OK'; accountsAlreadyLinked: boolean; user: UserJson }
  | (LinkedToAnother & { user: UserJson })
  | AccountInfoConflict
  | { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' };

export interface UnlinkAnswer {
  status: 'OK';
  wasRecipeUserDeleted: boolean;
  wasLinked: boolean;
}

/** No user id or external id is longer: a longer one names nobody (and could not be part of a key). */
const LONGEST_ID = Math.max(ID_LIMITS.userId, ID_LIMITS.externalUserId);

/** The user a recipe user id (or its external id) belongs to; 400 `Unknown user ID provided` if none. */
async function known(deps: UsersDeps, appId: string, id: string) {
  const found = id.length > LONGEST_ID ? undefined : await resolveUser(deps, appId, id);
  if (!found) throw new BadRequestError(UNKNOWN_USER_MESSAGE);
  return found;
}

const lostRace = (what: string) =>
  new BackpressureError('conflict', `${what} kept conflicting with concurrent changes of the same users`);

/** The id a user is known by outside (its external id when it has one). */
async function shownId(deps: UsersDeps, appId: string, superTokensId: string): Promise<string> {
  const user = await deps.store.getUserBySuperTokensId(appId, superTokensId);
  return user ? externalIdOf(user, superTokensId) : superTokensId;
}

/**
 * The first account info of `checks` that a primary user other than `owner` holds, as the
 * reference's answer; undefined when none does.
 */
async function conflictOf(
  deps: UsersDeps,
  appId: string,
  checks: readonly AccountInfoCheck[],
  owner: string | undefined,
): Promise<AccountInfoConflict | undefined> {
  if (checks.length === 0) return undefined;
  const holders = await deps.store.primaryUsersHolding(
    appId,
    checks.map((c) => c.info),
  );
  const index = holders.findIndex((holder) => holder !== undefined && holder !== owner);
  const holder = holders[index];
  const check = checks[index];
  if (holder === undefined || check === undefined) return undefined;
  return {
    status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
    primaryUserId: await shownId(deps, appId, holder),
    description: CONFLICT_DESCRIPTIONS[check.kind],
  };
}

/** The checks of making this standalone recipe user primary: its login method in each of its tenants. */
function primaryChecks(user: UserRecord): AccountInfoCheck[] {
  const method = user.loginMethods[0];
  if (!method) return [];
  return method.tenantIds.flatMap((tenantId) => accountInfoChecks(method, tenantId));
}

type CreateDecision =
  | { kind: 'answer'; answer: CanCreatePrimaryAnswer; user: UserRecord }
  | { kind: 'create'; user: UserRecord };

async function decideCreate(deps: UsersDeps, appId: string, id: string): Promise<CreateDecision> {
  const { user, superTokensId } = await known(deps, appId, id);
  if (user.isPrimaryUser) {
    if (user.userId === superTokensId) {
      return { kind: 'answer', answer: { status: 'OK', wasAlreadyAPrimaryUser: true }, user };
    }
    return {
      kind: 'answer',
      answer: {
        status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
        primaryUserId: externalIdOf(user, user.userId),
        description: ALREADY_LINKED_TO_PRIMARY,
      },
      user,
    };
  }
  const conflict = await conflictOf(deps, appId, primaryChecks(user), undefined);
  if (conflict) return { kind: 'answer', answer: conflict, user };
  return { kind: 'create', user };
}

/** `GET /recipe/accountlinking/user/primary/check?recipeUserId=`. */
export async function canCreatePrimaryUser(
  deps: UsersDeps,
  target: LinkingTarget,
  recipeUserId: string,
): Promise<CanCreatePrimaryAnswer> {
  const decision = await decideCreate(deps, target.appId, recipeUserId);
  return decision.kind === 'answer' ? decision.answer : { status: 'OK', wasAlreadyAPrimaryUser: false };
}

/** `POST /recipe/accountlinking/user/primary` `{recipeUserId}`: 402 when the app has linking off. */
export async function createPrimaryUser(
  deps: UsersDeps,
  target: LinkingTarget,
  recipeUserId: string,
): Promise<CreatePrimaryAnswer> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const decision = await decideCreate(deps, target.appId, recipeUserId);
    if (!target.linkingEnabled) throw new AccountLinkingDisabledError();
    if (decision.kind === 'answer') {
      const { answer, user } = decision;
      return answer.status === 'OK' ? { ...answer, user: toUserJson(user) } : answer;
    }
    const after = asPrimary(decision.user);
    const result = await writePlan(deps.store, target.appId, { changes: [{ before: decision.user, after }] });
    if (result.ok) return { status: 'OK', wasAlreadyAPrimaryUser: false, user: toUserJson(after) };
    // The user changed, or another primary user took one of its account infos: read again.
  }
  throw lostRace('creating a primary user');
}

type LinkDecision =
  | { kind: 'answer'; answer: CanLinkAnswer; recipeGroup: UserRecord; primary: UserRecord }
  | { kind: 'link'; recipe: UserRecord; primary: UserRecord };

async function decideLink(deps: UsersDeps, appId: string, recipeId: string, primaryId: string): Promise<LinkDecision> {
  const recipe = await known(deps, appId, recipeId);
  const { user: primary } = await known(deps, appId, primaryId);
  const answer = (a: CanLinkAnswer): LinkDecision => ({ kind: 'answer', answer: a, recipeGroup: recipe.user, primary });
  if (!primary.isPrimaryUser) return answer({ status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' });
  if (recipe.user.isPrimaryUser) {
    if (recipe.user.userId === primary.userId) return answer({ status: 'OK', accountsAlreadyLinked: true });
    return answer({
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: externalIdOf(recipe.user, recipe.user.userId),
      description: ALREADY_LINKED_TO_ANOTHER,
    });
  }
  // Every tenant of either user: linking in a tenant one of them is not in would still put two
  // primary users' account infos side by side where the other one is.
  const tenants = [...new Set([...recipe.user.loginMethods, ...primary.loginMethods].flatMap((lm) => lm.tenantIds))];
  const methods = [...recipe.user.loginMethods, ...primary.loginMethods];
  const checks = methods.flatMap((lm) => tenants.flatMap((tenantId) => accountInfoChecks(lm, tenantId)));
  const conflict = await conflictOf(deps, appId, checks, primary.userId);
  if (conflict) {
    // A concurrent link of this recipe user makes its own account info look taken: when the recipe
    // user was linked since it was read, answer as for a linked recipe user (as the reference, whose
    // links are serialised, does).
    const again = await known(deps, appId, recipeId);
    if (again.user.isPrimaryUser && !recipe.user.isPrimaryUser) return decideLink(deps, appId, recipeId, primaryId);
    return answer(conflict);
  }
  return { kind: 'link', recipe: recipe.user, primary };
}

/** `GET /recipe/accountlinking/user/link/check?recipeUserId=&primaryUserId=`. */
export async function canLinkAccounts(
  deps: UsersDeps,
  target: LinkingTarget,
  input: { recipeUserId: string; primaryUserId: string },
): Promise<CanLinkAnswer> {
  const decision = await decideLink(deps, target.appId, input.recipeUserId, input.primaryUserId);
  return decision.kind === 'answer' ? decision.answer : { status: 'OK', accountsAlreadyLinked: false };
}

/**
 * `POST /recipe/accountlinking/user/link` `{recipeUserId, primaryUserId}`: the recipe user's login
 * method moves under the primary user (one transaction: its USER item becomes a LINK item, its
 * account-info items and external id name the primary, the primary reserves its account infos,
 * list entries and counters follow). Roles, metadata and TOTP devices stay under the ids they are
 * kept for, as in the reference; the recipe user's sessions end. 402 when the app has linking off.
 */
export async function linkAccounts(
  deps: LinkingDeps,
  target: LinkingTarget,
  input: { recipeUserId: string; primaryUserId: string },
): Promise<LinkAnswer> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const decision = await decideLink(deps, target.appId, input.recipeUserId, input.primaryUserId);
    if (!target.linkingEnabled) throw new AccountLinkingDisabledError();
    if (decision.kind === 'answer') {
      const { answer } = decision;
      if (answer.status === 'OK') return { ...answer, user: toUserJson(decision.primary) };
      if (answer.status === 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR') {
        return { ...answer, user: toUserJson(decision.recipeGroup) };
      }
      return answer;
    }
    const after = linked(decision.primary, decision.recipe);
    const plan: UserWritePlan = {
      changes: [{ before: decision.recipe }, { before: decision.primary, after }],
    };
    const result = await writePlan(deps.store, target.appId, plan);
    if (result.ok) {
      await endSessionsOf(deps.sessions, target.appId, externalIdOf(decision.recipe, decision.recipe.userId));
      return { status: 'OK', accountsAlreadyLinked: false, user: toUserJson(after) };
    }
  }
  throw lostRace('linking accounts');
}

/**
 * `POST /recipe/accountlinking/user/unlink` `{recipeUserId}`. A linked recipe user becomes a
 * standalone recipe user again; the primary user's own id, when other login methods are linked to
 * it, is deleted instead (`wasRecipeUserDeleted`: two users cannot share one id) and the group
 * keeps the id, its mapping, roles and metadata; a primary user with only its own login method
 * stops being primary. The unlinked recipe user's sessions end. Not gated by the linking switch,
 * as in the reference.
 */
export async function unlinkAccount(deps: LinkingDeps, appId: string, recipeUserId: string): Promise<UnlinkAnswer> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const { user, superTokensId } = await known(deps, appId, recipeUserId);
    if (!user.isPrimaryUser) return { status: 'OK', wasRecipeUserDeleted: false, wasLinked: false };
    const method = user.loginMethods.find((lm) => lm.recipeUserId === superTokensId);
    let plan: UserWritePlan;
    let deleted = false;
    if (superTokensId === user.userId) {
      // A group whose own login method was deleted earlier has nothing of this id to unlink.
      if (!method) return { status: 'OK', wasRecipeUserDeleted: false, wasLinked: true };
      if (user.loginMethods.length === 1) {
        plan = { changes: [{ before: user, after: asRecipeUser(user) }] };
      } else {
        const rest = without(user, superTokensId, true);
        plan = { changes: [{ before: user, ...(rest ? { after: rest } : {}) }] };
        deleted = true;
      }
    } else {
      if (!method) throw new Error('a linked recipe user id without its login method');
      const rest = without(user, superTokensId, false);
      plan = { changes: [{ before: user, ...(rest ? { after: rest } : {}) }, { after: standalone(user, method) }] };
    }
    const result = await writePlan(deps.store, appId, plan);
    if (result.ok) {
      await endSessionsOf(deps.sessions, appId, externalIdOf(user, superTokensId));
      return { status: 'OK', wasRecipeUserDeleted: deleted, wasLinked: true };
    }
  }
  throw lostRace('unlinking an account');
}
