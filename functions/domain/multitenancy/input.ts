/**
 * The request bodies of the multitenancy endpoints, read with the reference's rules and messages
 * (docs/reference-behaviour.md "Apps", "Tenants").
 */
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { BadRequestError, ForbiddenError } from '#functions/shared/errors.js';
import {
  has,
  optionalBoolean,
  optionalObject,
  optionalString,
  optionalStringArrayOrNull,
  requiredString,
} from '#functions/shared/input.js';
import type { ApiVersion, Caller } from './deps.js';
import { checkNoDuplicates, type LegacyUpdate } from './factors.js';
import { normaliseAppId, normaliseTenantId } from './ids.js';
import type { ProviderConfig } from './tenant.js';
import { validateProviderConfig } from './thirdparty.js';

type Body = Readonly<Record<string, unknown>>;

export interface ParsedConfigInput {
  readonly factors: LegacyUpdate;
  readonly coreConfig: Record<string, unknown> | undefined;
}

/** Reads the factor, switch and coreConfig fields of an app/tenant create-or-update body. */
function parseConfigInput(body: Body, api: ApiVersion, cdiAtLeast5: boolean): ParsedConfigInput {
  if (api === 'v2') {
    if (has(body, 'emailPasswordEnabled'))
      throw new BadRequestError('emailPasswordEnabled is not a valid input for this API');
    if (has(body, 'thirdPartyEnabled')) throw new BadRequestError('thirdParty is not a valid input for this API');
    if (has(body, 'passwordlessEnabled')) throw new BadRequestError('passwordless is not a valid input for this API');
  }
  const factors: LegacyUpdate =
    api === 'v2' || cdiAtLeast5
      ? {
          firstFactors: optionalStringArrayOrNull(body, 'firstFactors'),
          requiredSecondaryFactors: optionalStringArrayOrNull(body, 'requiredSecondaryFactors'),
        }
      : {};
  const switches: LegacyUpdate =
    api === 'legacy'
      ? {
          emailPasswordEnabled: optionalBoolean(body, 'emailPasswordEnabled'),
          thirdPartyEnabled: optionalBoolean(body, 'thirdPartyEnabled'),
          passwordlessEnabled: optionalBoolean(body, 'passwordlessEnabled'),
        }
      : {};
  if (api === 'v2') {
    checkNoDuplicates('firstFactors', factors.firstFactors);
    checkNoDuplicates('requiredSecondaryFactors', factors.requiredSecondaryFactors);
  }
  return { factors: { ...factors, ...switches }, coreConfig: optionalObject(body, 'coreConfig') };
}

export interface AppPutInput {
  readonly appId: string;
  readonly config: ParsedConfigInput;
}

/** The id an app or tenant PUT body names in `field`: `public` when missing, else as `normalise` makes it. */
function putId(body: Body, field: 'appId' | 'tenantId', normalise: (raw: string) => string): string {
  const raw = optionalString(body, field);
  return raw === undefined ? PUBLIC_TENANT_ID : normalise(raw);
}

/** The body of `PUT /recipe/multitenancy/app[/v2]`. */
export function parseAppPut(body: Body, caller: Caller, api: ApiVersion): AppPutInput {
  return { appId: putId(body, 'appId', normaliseAppId), config: parseConfigInput(body, api, caller.cdiAtLeast5) };
}

export interface TenantPutInput {
  readonly tenantId: string;
  readonly config: ParsedConfigInput;
}

/** The body of `PUT /recipe/multitenancy/tenant[/v2]`. */
export function parseTenantPut(body: Body, caller: Caller, api: ApiVersion): TenantPutInput {
  return {
    tenantId: putId(body, 'tenantId', normaliseTenantId),
    config: parseConfigInput(body, api, caller.cdiAtLeast5),
  };
}

/** The body of `POST /recipe/multitenancy/app/remove`: the app id (never `public`). */
export function parseAppRemove(body: Body): { appId: string } {
  const appId = normaliseAppId(requiredString(body, 'appId'));
  if (appId === PUBLIC_TENANT_ID) {
    throw new ForbiddenError('Cannot delete the public app, use remove connection uri domain API instead');
  }
  return { appId };
}

/** The body of `POST /recipe/multitenancy/tenant/remove`: the tenant id (never `public`). */
export function parseTenantRemove(body: Body): { tenantId: string } {
  const tenantId = normaliseTenantId(requiredString(body, 'tenantId'));
  if (tenantId === PUBLIC_TENANT_ID)
    throw new ForbiddenError('Cannot delete public tenant, use remove app API instead');
  return { tenantId };
}

/** The body of `PUT /<t>/recipe/multitenancy/config/thirdparty`: one validated provider. */
export function parseThirdPartyPut(body: Body): ProviderConfig {
  const config = optionalObject(body, 'config');
  if (config === undefined) throw new BadRequestError("Field name 'config' is invalid in JSON input");
  const skipValidation = optionalBoolean(body, 'skipValidation') ?? false;
  return validateProviderConfig(config, skipValidation);
}

/** The body of `POST /<t>/recipe/multitenancy/config/thirdparty/remove`: the provider's id. */
export function parseThirdPartyRemove(body: Body): { thirdPartyId: string } {
  return { thirdPartyId: requiredString(body, 'thirdPartyId').trim() };
}
