import { cdiAtLeast } from '#functions/shared/cdi.js';
import { BadRequestError } from '#functions/shared/errors.js';
import type { TenantRecord } from './tenant.js';

/** Login-method state of a tenant: the legacy recipe switches plus the CDI ≥ 5.0 factor lists. */
export interface FactorState {
  emailPasswordEnabled: boolean;
  thirdPartyEnabled: boolean;
  passwordlessEnabled: boolean;
  firstFactors: string[] | null;
  requiredSecondaryFactors: string[] | null;
}

export type Recipe = 'emailPassword' | 'thirdParty' | 'passwordless';
const FLAG: Record<Recipe, 'emailPasswordEnabled' | 'thirdPartyEnabled' | 'passwordlessEnabled'> = {
  emailPassword: 'emailPasswordEnabled',
  thirdParty: 'thirdPartyEnabled',
  passwordless: 'passwordlessEnabled',
};
/** The built-in first factors each legacy recipe switch stands for. */
const RECIPE_FACTORS: Record<Recipe, readonly string[]> = {
  emailPassword: ['emailpassword'],
  thirdParty: ['thirdparty'],
  passwordless: ['otp-email', 'otp-phone', 'link-email', 'link-phone'],
};
const RECIPES = Object.keys(RECIPE_FACTORS) as Recipe[];
const ALL_FIRST_FACTORS = RECIPES.flatMap((r) => RECIPE_FACTORS[r]);
const FACTOR_NAME = /^[0-9a-zA-Z_(.)-]+$/;

export type FactorListName = 'firstFactors' | 'requiredSecondaryFactors';

/** The first factors the legacy switches allow: null when all built-in factors are allowed. */
function factorsFromFlags(state: FactorState): string[] | null {
  const list = RECIPES.filter((r) => state[FLAG[r]]).flatMap((r) => RECIPE_FACTORS[r]);
  return list.length === ALL_FIRST_FACTORS.length ? null : list;
}

function allFlagsOn(state: FactorState): boolean {
  return RECIPES.every((r) => state[FLAG[r]]);
}

export function checkNoDuplicates(name: FactorListName, list: readonly string[] | null | undefined): void {
  if (list && new Set(list).size !== list.length) {
    throw new BadRequestError(`${name} input should not contain duplicate values`);
  }
}

function checkFactorNames(name: FactorListName, list: readonly string[] | null | undefined): void {
  if (list?.some((f) => !FACTOR_NAME.test(f))) {
    throw new BadRequestError(`${name} should contain only 0-9,a-z,A-Z,_,.,- characters`);
  }
}

export interface V2FactorUpdate {
  readonly firstFactors?: string[] | null | undefined;
  readonly requiredSecondaryFactors?: string[] | null | undefined;
}

/**
 * The v2 APIs' update (docs/reference-behaviour.md "Creating or updating an app"): when either list is given the legacy switches are all turned
 * on — after converting switches that were off into an explicit first-factor list — and the given
 * lists overwrite the stored ones. An empty `requiredSecondaryFactors` is stored as null.
 */
export function applyV2Factors(state: FactorState, update: V2FactorUpdate): FactorState {
  if (update.firstFactors === undefined && update.requiredSecondaryFactors === undefined) return { ...state };
  const next: FactorState = { ...state };
  if (next.firstFactors === null && !allFlagsOn(next)) next.firstFactors = factorsFromFlags(next);
  next.emailPasswordEnabled = true;
  next.thirdPartyEnabled = true;
  next.passwordlessEnabled = true;
  if (update.firstFactors !== undefined) next.firstFactors = update.firstFactors ? [...update.firstFactors] : null;
  if (update.requiredSecondaryFactors !== undefined) {
    const list = update.requiredSecondaryFactors;
    next.requiredSecondaryFactors = list && list.length > 0 ? [...list] : null;
  }
  checkFactorNames('firstFactors', update.firstFactors);
  checkFactorNames('requiredSecondaryFactors', update.requiredSecondaryFactors);
  return next;
}

export interface LegacyUpdate extends V2FactorUpdate {
  readonly emailPasswordEnabled?: boolean | undefined;
  readonly thirdPartyEnabled?: boolean | undefined;
  readonly passwordlessEnabled?: boolean | undefined;
}

const without = (list: string[] | null, remove: readonly string[]) =>
  list === null ? null : list.filter((f) => !remove.includes(f));

/** The legacy APIs' update under CDI < 5.0 (docs/reference-behaviour.md "The legacy app input": "3.0 logic"); factor lists are not inputs there. */
export function applyLegacyFactorsCdi3(state: FactorState, update: LegacyUpdate): FactorState {
  const next: FactorState = { ...state };
  for (const recipe of RECIPES) {
    const value = update[FLAG[recipe]];
    if (value === undefined) continue;
    const factors = RECIPE_FACTORS[recipe];
    if (value) {
      next[FLAG[recipe]] = true;
      if (next.firstFactors !== null) next.firstFactors = [...new Set([...next.firstFactors, ...factors])];
    } else {
      next.firstFactors = without(next.firstFactors ?? [...ALL_FIRST_FACTORS], factors);
    }
  }
  return next;
}

/** The legacy APIs' update under CDI ≥ 5.0 (docs/reference-behaviour.md "The legacy app input": "5.0 logic"). */
export function applyLegacyFactorsCdi5(state: FactorState, update: LegacyUpdate): FactorState {
  if (update.firstFactors?.length === 0) {
    throw new BadRequestError('firstFactors cannot be empty. Set null instead to remove all first factors.');
  }
  if (update.requiredSecondaryFactors?.length === 0) {
    throw new BadRequestError(
      'requiredSecondaryFactors cannot be empty. Set null instead to remove all required secondary factors.',
    );
  }
  checkNoDuplicates('firstFactors', update.firstFactors);
  checkNoDuplicates('requiredSecondaryFactors', update.requiredSecondaryFactors);
  for (const recipe of RECIPES) {
    if (update[FLAG[recipe]] !== false) continue;
    for (const name of ['firstFactors', 'requiredSecondaryFactors'] as const) {
      const clash = update[name]?.find((f) => RECIPE_FACTORS[recipe].includes(f));
      if (clash !== undefined) {
        throw new BadRequestError(
          `Invalid core config: ${name} should not contain '${clash}' because ${recipe} is disabled for the tenant.`,
        );
      }
    }
  }
  checkFactorNames('firstFactors', update.firstFactors);
  checkFactorNames('requiredSecondaryFactors', update.requiredSecondaryFactors);

  const next: FactorState = { ...state };
  for (const recipe of RECIPES) {
    const value = update[FLAG[recipe]];
    if (value === undefined) continue;
    next[FLAG[recipe]] = value;
    if (!value) {
      next.firstFactors = without(next.firstFactors, RECIPE_FACTORS[recipe]);
      next.requiredSecondaryFactors = without(next.requiredSecondaryFactors, RECIPE_FACTORS[recipe]);
    }
  }
  for (const name of ['firstFactors', 'requiredSecondaryFactors'] as const) {
    const list = update[name];
    if (list === undefined) continue;
    next[name] = list === null ? null : [...list];
    for (const recipe of RECIPES) {
      if (list?.some((f) => RECIPE_FACTORS[recipe].includes(f))) next[FLAG[recipe]] = true;
    }
  }
  return next;
}

/** A tenant record's login-method state, as the rules below read it (copies: the rules may build on it). */
export function factorStateOf(tenant: TenantRecord): FactorState {
  return {
    emailPasswordEnabled: tenant.emailPasswordEnabled,
    thirdPartyEnabled: tenant.thirdPartyEnabled,
    passwordlessEnabled: tenant.passwordlessEnabled,
    firstFactors: tenant.firstFactors ? [...tenant.firstFactors] : null,
    requiredSecondaryFactors: tenant.requiredSecondaryFactors ? [...tenant.requiredSecondaryFactors] : null,
  };
}

/**
 * Whether a tenant lets a recipe's sign-ins in at a request's CDI version (the reference's check
 * before a sign-in-up): always from CDI 5.1; before, only an existing tenant whose legacy switch
 * and first factors enable the recipe.
 */
export function recipeAllowed(tenant: TenantRecord | undefined, recipe: Recipe, cdiVersion: string): boolean {
  if (cdiAtLeast(cdiVersion, '5.1')) return true;
  return tenant !== undefined && legacyRecipeEnabled(factorStateOf(tenant), recipe, cdiAtLeast(cdiVersion, '5.0'));
}

/** Whether a legacy view shows a recipe as enabled (docs/reference-behaviour.md "Listing apps"). */
export function legacyRecipeEnabled(state: FactorState, recipe: Recipe, cdiAtLeast5: boolean): boolean {
  if (!state[FLAG[recipe]]) return false;
  if (state.firstFactors === null) return true;
  if (cdiAtLeast5) return state.firstFactors.length > 0;
  return state.firstFactors.some((f) => RECIPE_FACTORS[recipe].includes(f));
}

/** The first factors the v2 views show: the stored list, or one derived from switches that are off. */
export function v2FirstFactors(state: FactorState): string[] | null {
  if (state.firstFactors !== null) return state.firstFactors;
  return allFlagsOn(state) ? null : factorsFromFlags(state);
}
