/**
 * Request readers of the session routes, with the reference core's messages (its generic parser:
 * `Field name '<f>' is invalid in JSON input`, and its own sentences where it has them).
 */
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import {
  has,
  optionalBoolean,
  optionalObject,
  optionalString,
  requiredQuery,
  requiredString,
} from '#functions/shared/input.js';
import { type AccessTokenVersion, accessTokenVersionFor } from './access-token.js';
import type { CreateSessionInput } from './create.js';
import type { CreateJwtInput } from './jwt.js';
import type { JsonObject } from './model.js';
import type { RefreshInput } from './refresh.js';
import type { RegenerateInput } from './regenerate.js';
import type { RevokeInput } from './revoke.js';
import type { VerifyInput } from './verify.js';

type Body = Readonly<Record<string, unknown>>;
type Query = Readonly<Record<string, string | undefined>>;

function requiredObject(body: Body, name: string): JsonObject {
  const value = optionalObject(body, name);
  if (value === undefined) throw new BadRequestError(invalidFieldMessage(name));
  return value;
}

function requiredBoolean(body: Body, name: string): boolean {
  const value = optionalBoolean(body, name);
  if (value === undefined) throw new BadRequestError(invalidFieldMessage(name));
  return value;
}

/** A JSON string that may also be null (the SDK sends `antiCsrfToken: undefined`, which JSON drops, or null). */
function optionalNullableString(body: Body, name: string): string | undefined {
  return body[name] === null ? undefined : optionalString(body, name);
}

/** CDI `a.b` ≥ `x.y`. */
function atLeast(cdi: string, version: string): boolean {
  const [a = 0, b = 0] = cdi.split('.').map(Number);
  const [x = 0, y = 0] = version.split('.').map(Number);
  return a > x || (a === x && b >= y);
}

export function readCreateSession(body: Body, cdiVersion: string, dynamicByDefault: boolean): CreateSessionInput {
  const userId = requiredString(body, 'userId');
  const enableAntiCsrf = requiredBoolean(body, 'enableAntiCsrf');
  const userDataInJWT = requiredObject(body, 'userDataInJWT');
  const userDataInDatabase = requiredObject(body, 'userDataInDatabase');
  const dynamic = atLeast(cdiVersion, '2.21') ? optionalBoolean(body, 'useDynamicSigningKey') : dynamicByDefault;
  return {
    userId,
    enableAntiCsrf,
    userDataInJWT,
    userDataInDatabase,
    useDynamicSigningKey: dynamic,
    accessTokenVersion: accessTokenVersionFor(cdiVersion),
  };
}

export function readVerify(body: Body, cdiVersion: string, checkByDefault: boolean): VerifyInput {
  const accessToken = requiredString(body, 'accessToken');
  const antiCsrfToken = optionalNullableString(body, 'antiCsrfToken');
  const doAntiCsrfCheck = requiredBoolean(body, 'doAntiCsrfCheck');
  const enableAntiCsrf = requiredBoolean(body, 'enableAntiCsrf');
  const checkDatabase = atLeast(cdiVersion, '2.21') ? requiredBoolean(body, 'checkDatabase') : checkByDefault;
  return { accessToken, antiCsrfToken, doAntiCsrfCheck, enableAntiCsrf, checkDatabase };
}

export function readRefresh(body: Body, cdiVersion: string): RefreshInput {
  const refreshToken = requiredString(body, 'refreshToken');
  const antiCsrfToken = optionalNullableString(body, 'antiCsrfToken');
  const enableAntiCsrf = requiredBoolean(body, 'enableAntiCsrf');
  let useDynamicSigningKey: boolean | undefined;
  if (atLeast(cdiVersion, '3.0')) {
    useDynamicSigningKey = atLeast(cdiVersion, '5.0')
      ? requiredBoolean(body, 'useDynamicSigningKey')
      : optionalBoolean(body, 'useDynamicSigningKey');
  }
  return {
    refreshToken,
    antiCsrfToken,
    enableAntiCsrf,
    useDynamicSigningKey,
    accessTokenVersion: accessTokenVersionFor(cdiVersion),
  };
}

export function readRegenerate(body: Body, cdiVersion: string): RegenerateInput {
  const accessToken = requiredString(body, 'accessToken');
  const userDataInJWT = body.userDataInJWT === null ? undefined : optionalObject(body, 'userDataInJWT');
  return { accessToken, userDataInJWT, checkPayload: atLeast(cdiVersion, '2.21') };
}

export function readSessionData(body: Body): { sessionHandle: string; userDataInDatabase: JsonObject } {
  return {
    sessionHandle: requiredString(body, 'sessionHandle'),
    userDataInDatabase: requiredObject(body, 'userDataInDatabase'),
  };
}

/** `PUT /recipe/jwt/data`: from CDI 2.21 the payload may not name a claim of the version the CDI version implies. */
export function readJwtData(
  body: Body,
  cdiVersion: string,
): { sessionHandle: string; userDataInJWT: JsonObject; protectedFor?: AccessTokenVersion } {
  return {
    sessionHandle: requiredString(body, 'sessionHandle'),
    userDataInJWT: requiredObject(body, 'userDataInJWT'),
    ...(atLeast(cdiVersion, '2.21') ? { protectedFor: accessTokenVersionFor(cdiVersion) } : {}),
  };
}

/** A query flag as the reference reads it: absent = true, else whether it is `true` (any case). */
const flag = (query: Query, name: string) => (query[name] === undefined ? true : query[name]?.toLowerCase() === 'true');

export function readSessionUser(query: Query) {
  return {
    userId: requiredQuery(query, 'userId'),
    acrossAllTenants: flag(query, 'fetchAcrossAllTenants'),
    linkedAccounts: flag(query, 'fetchSessionsForAllLinkedAccounts'),
  };
}

export function readRevoke(body: Body): RevokeInput {
  const userId = optionalNullableString(body, 'userId');
  let handles: string[] | undefined;
  if (has(body, 'sessionHandles') && body.sessionHandles !== null) {
    const value = body.sessionHandles;
    if (!Array.isArray(value)) throw new BadRequestError(invalidFieldMessage('sessionHandles'));
    if (!value.every((h) => typeof h === 'string')) throw new BadRequestError(invalidFieldMessage('sessionHandles'));
    handles = value as string[];
  }
  if ((userId === undefined) === (handles === undefined)) {
    throw new BadRequestError('Invalid JSON input - use one of userId or sessionHandles array');
  }
  const across = body.revokeAcrossAllTenants === null ? undefined : optionalBoolean(body, 'revokeAcrossAllTenants');
  if (userId === undefined && across !== undefined) {
    throw new BadRequestError('Invalid JSON input - revokeAcrossAllTenants can only be set if userId is set');
  }
  const linked =
    body.revokeSessionsForLinkedAccounts === null
      ? undefined
      : optionalBoolean(body, 'revokeSessionsForLinkedAccounts');
  if (userId === undefined && linked !== undefined) {
    throw new BadRequestError('Invalid JSON input - revokeSessionsForLinkedAccounts can only be set if userId is set');
  }
  if (userId !== undefined) return { userId, acrossAllTenants: across ?? true, linkedAccounts: linked ?? true };
  return { sessionHandles: handles ?? [] };
}

export function readSessionHandleQuery(query: Query): string {
  return requiredQuery(query, 'sessionHandle');
}

export function readCreateJwt(body: Body, cdiVersion: string): CreateJwtInput {
  const algorithm = requiredString(body, 'algorithm');
  const jwksDomain = requiredString(body, 'jwksDomain');
  const payload = requiredObject(body, 'payload');
  const raw = body.validity;
  if (typeof raw !== 'number' || !Number.isFinite(raw) || Math.abs(raw) > Number.MAX_SAFE_INTEGER / 1000) {
    throw new BadRequestError(invalidFieldMessage('validity'));
  }
  const validity = Math.trunc(raw);
  if (validity <= 0) throw new BadRequestError('validity must be greater than or equal to 0');
  const useStaticSigningKey = atLeast(cdiVersion, '2.21') ? optionalBoolean(body, 'useStaticSigningKey') : true;
  return { algorithm, jwksDomain, payload, validity, useStaticSigningKey };
}
