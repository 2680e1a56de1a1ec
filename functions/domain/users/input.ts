/**
 * The requests of the users routes — email/password sign-in and sign-up, user get and remove, user
 * id mappings, lookups and listings — as schemas (functions/shared/request-schema.ts): what the
 * handlers parse and the API description shows. Fields are read in the reference's order, then
 * this core's id length limits (functions/shared/id-limits.ts).
 */
import * as z from 'zod/mini';
import { BadRequestError } from '#functions/shared/errors.js';
import { checkIdLength, type IdKind } from '#functions/shared/id-limits.js';
import {
  jsonBoolean,
  jsonString,
  optional,
  optionalOrNull,
  optionalQuery,
  queryInt,
  queryString,
  rule,
  shownAs,
} from '#functions/shared/request-schema.js';
import type { UserIdType } from './id-mapping.js';

/** An id within its kind's length limit (`field` names it in the message). */
const within =
  (kind: IdKind, field: string = kind) =>
  (value: string) => {
    checkIdLength(kind, value, field);
    return value;
  };

const USER_ID_TYPES = ['SUPERTOKENS', 'EXTERNAL', 'ANY'] as const;

/** `SUPERTOKENS`, `EXTERNAL` or `ANY` (trimmed); absent: `ANY`. */
function parseUserIdType(raw: string | undefined): UserIdType {
  if (raw === undefined) return 'ANY';
  const value = raw.trim();
  if (value === 'SUPERTOKENS' || value === 'EXTERNAL' || value === 'ANY') return value;
  throw new BadRequestError("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'");
}

/** A body's optional `userIdType`. */
const userIdTypeField = () => shownAs({ enum: [...USER_ID_TYPES] }, rule(optional(jsonString()), parseUserIdType));

/** A body's `userId`, trimmed and not empty. */
const trimmedUserId = () =>
  rule(jsonString(), (raw) => {
    const userId = raw.trim();
    if (userId === '') throw new BadRequestError("Field name 'userId' cannot be an empty String");
    return userId;
  });

/** `POST /<t>/recipe/signin` body. */
export const signInRequest = z.object({ email: jsonString(), password: jsonString() });

/** `POST /<t>/recipe/signup` body: the email (trimmed) within its length limit. */
export const signUpRequest = rule(z.object({ email: jsonString(), password: jsonString() }), (body) => {
  checkIdLength('email', body.email.trim());
  return body;
});

/** `GET /user/id?userId=`. */
export const userGetQuery = z.object({ userId: rule(queryString(), within('userId')) });

/** `POST /user/remove` body: `userId`, `removeAllLinkedAccounts` (default true). */
export const userRemoveRequest = rule(
  z.object({ userId: rule(jsonString(), within('userId')), removeAllLinkedAccounts: optional(jsonBoolean()) }),
  (body) => ({ userId: body.userId, removeAllLinkedAccounts: body.removeAllLinkedAccounts ?? true }),
);

/** `GET /recipe/userid/map?userId=&userIdType=`. */
export const mappingQuery = z.object({
  userId: rule(queryString(), (userId) => {
    checkIdLength('userId', userId.trim());
    return userId;
  }),
  userIdType: shownAs({ enum: [...USER_ID_TYPES] }, rule(optionalQuery(), parseUserIdType)),
});

/** `POST /recipe/userid/map` body; the ids' lengths (trimmed) once every field is read. */
export const createMappingRequest = rule(
  z.object({
    externalUserIdInfo: optionalOrNull(jsonString()),
    superTokensUserId: jsonString(),
    externalUserId: jsonString(),
    force: optional(jsonBoolean()),
  }),
  ({ externalUserIdInfo, superTokensUserId, externalUserId, force }) => {
    checkIdLength('userId', superTokensUserId.trim(), 'superTokensUserId');
    checkIdLength('externalUserId', externalUserId.trim());
    if (externalUserIdInfo != null) checkIdLength('externalUserIdInfo', externalUserIdInfo.trim());
    return {
      superTokensUserId,
      externalUserId,
      ...(externalUserIdInfo != null ? { externalUserIdInfo } : {}),
      force: force ?? false,
    };
  },
);

/** `POST /recipe/userid/map/remove` body: `userId` (trimmed, not empty), optional `userIdType` and `force`. */
export const removeMappingRequest = rule(
  z.object({ userId: trimmedUserId(), userIdType: userIdTypeField(), force: optional(jsonBoolean()) }),
  ({ userId, userIdType, force }) => {
    checkIdLength('userId', userId);
    return { userId, userIdType, force: force ?? false };
  },
);

/**
 * `PUT /recipe/userid/external-user-id-info` body: `userId`, optional `userIdType`, and
 * `externalUserIdInfo` (present; JSON null removes the info; else trimmed and not empty).
 */
export const updateMappingInfoRequest = rule(
  z.object({
    userId: trimmedUserId(),
    userIdType: userIdTypeField(),
    externalUserIdInfo: rule(z.nullable(jsonString()), (raw) => {
      const info = raw?.trim();
      if (info === '') throw new BadRequestError("Field name 'externalUserIdInfo' cannot be an empty String");
      return info;
    }),
  }),
  ({ userId, userIdType, externalUserIdInfo }) => {
    checkIdLength('userId', userId);
    if (externalUserIdInfo !== undefined) checkIdLength('externalUserIdInfo', externalUserIdInfo);
    return { userId, userIdType, ...(externalUserIdInfo !== undefined ? { externalUserIdInfo } : {}) };
  },
);

/** An account-info query parameter: as given, its trimmed value within its kind's length limit. */
const accountInfo = (kind: IdKind) =>
  rule(optionalQuery(), (value) => {
    if (value !== undefined) checkIdLength(kind, value.trim());
    return value;
  });

/** `GET /<t>/users/by-accountinfo?…&doUnionOfAccountInfo=`. */
export const usersByAccountInfoQuery = z.object({
  doUnionOfAccountInfo: shownAs(
    { enum: ['true', 'false'] },
    rule(queryString(), (union) => {
      if (union !== 'true' && union !== 'false') {
        throw new BadRequestError("'doUnionOfAccountInfo' should be either 'true' or 'false'");
      }
      return union === 'true';
    }),
  ),
  email: accountInfo('email'),
  phoneNumber: accountInfo('phoneNumber'),
  thirdPartyId: accountInfo('thirdPartyId'),
  thirdPartyUserId: accountInfo('thirdPartyUserId'),
  webauthnCredentialId: optionalQuery(),
});

/** `GET /<t>/users/count?includeRecipeIds=&includeAllTenants=`. */
export const usersCountQuery = rule(
  z.object({
    includeRecipeIds: optionalQuery(),
    includeAllTenants: shownAs({ enum: ['true', 'false'] }, optionalQuery()),
  }),
  (query) => ({ includeRecipeIds: query.includeRecipeIds, includeAllTenants: query.includeAllTenants === 'true' }),
);

/** `GET /<t>/users?…`: the order and recipe ids are checked by the listing (functions/domain/users/listing.ts). */
export const usersListQuery = z.object({
  timeJoinedOrder: shownAs({ enum: ['ASC', 'DESC'] }, optionalQuery()),
  limit: queryInt(),
  paginationToken: optionalQuery(),
  includeRecipeIds: optionalQuery(),
  email: optionalQuery(),
  phone: optionalQuery(),
  provider: optionalQuery(),
});

/** `GET /password-migration/pending?limit=&paginationToken=`. */
export const pendingPasswordsQuery = z.object({ limit: queryInt(), paginationToken: optionalQuery() });
