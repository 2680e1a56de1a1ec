/**
 * User id mappings: `GET /recipe/userid/map`, `POST /recipe/userid/map`,
 * `POST /recipe/userid/map/remove` and `PUT /recipe/userid/external-user-id-info`
 * (docs/users.md "User id mappings").
 */

import { cdiAtLeast } from '#functions/shared/cdi.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { UsersDeps } from './deps.js';
import type { UserRecord } from './model.js';
import type { UserIdDataKind, UserIdMapping } from './ports.js';
import { writePlan } from './write.js';

export type UserIdType = 'SUPERTOKENS' | 'EXTERNAL' | 'ANY';

function mappingJson(mapping: UserIdMapping) {
  return {
    status: 'OK',
    superTokensUserId: mapping.superTokensUserId,
    externalUserId: mapping.externalUserId,
    ...(mapping.externalUserIdInfo !== undefined ? { externalUserIdInfo: mapping.externalUserIdInfo } : {}),
  };
}

/** `GET /recipe/userid/map`. */
export async function getUserIdMapping(
  deps: UsersDeps,
  appId: string,
  input: { userId: string; userIdType: UserIdType },
) {
  const userId = input.userId.trim();
  if (userId === '') throw new BadRequestError("Field name 'userId' cannot be an empty String");
  if (input.userIdType !== 'EXTERNAL') {
    const user = await deps.store.getUserBySuperTokensId(appId, userId);
    const mapped = user?.externalIds[userId];
    if (mapped) return mappingJson({ superTokensUserId: userId, ...mapped });
    if (input.userIdType === 'SUPERTOKENS') return { status: 'UNKNOWN_MAPPING_ERROR' };
  }
  const mapping = await deps.store.getMappingByExternalId(appId, userId);
  return mapping ? mappingJson(mapping) : { status: 'UNKNOWN_MAPPING_ERROR' };
}

export interface CreateMappingInput {
  readonly superTokensUserId: string;
  readonly externalUserId: string;
  readonly externalUserIdInfo?: string;
  readonly force: boolean;
}

const MAPPING_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'user id mapping kept conflicting with concurrent changes',
};

const EXTERNAL_ID_IS_USER_ID = 'Cannot create a userId mapping where the externalId is also a SuperTokens userID';

/** `UserId is already in use in <recipe> recipe`: data kept under a user id blocks a mapping change. */
function inUse(kind: UserIdDataKind): BadRequestError {
  return new BadRequestError(`UserId is already in use in ${kind} recipe`);
}

/**
 * What is kept under `userId` besides a user, the reference's way: the store's kinds, and the
 * email verification of a login method of that id (its flag here, a row of the reference's
 * email-verification table there).
 */
async function dataKindsOf(deps: UsersDeps, appId: string, userId: string, user: UserRecord | undefined) {
  const kinds = await deps.store.userIdDataKinds(appId, userId, deps.now());
  const verifiedMethod = user?.loginMethods.some(
    (lm) => lm.recipeUserId === userId && lm.email !== undefined && lm.verified,
  );
  if (verifiedMethod && !kinds.includes('EmailVerification')) {
    kinds.push('EmailVerification');
    kinds.sort((a, b) => DATA_KIND_ORDER.indexOf(a) - DATA_KIND_ORDER.indexOf(b));
  }
  return kinds;
}

const DATA_KIND_ORDER: readonly UserIdDataKind[] = [
  'Session',
  'UserMetadata',
  'UserRoles',
  'EmailVerification',
  'TOTP',
];

/**
 * `POST /recipe/userid/map`, in the reference's order: the external id already mapped →
 * `USER_ID_MAPPING_ALREADY_EXISTS_ERROR` (`doesSuperTokensUserIdExist` says whether it is mapped to
 * this very id); the SuperTokens id naming no user → `UNKNOWN_SUPERTOKENS_USER_ID_ERROR`; without
 * `force`, the external id being a SuperTokens user id, or data kept under the SuperTokens id
 * (sessions, metadata, roles, email verification, TOTP devices: 400 `UserId is already in use in
 * <recipe> recipe`; from CDI 4.0 email verification alone is no obstacle: it stays the user's);
 * then the SuperTokens id already mapped → `USER_ID_MAPPING_ALREADY_EXISTS_ERROR`.
 */
export async function createUserIdMapping(
  deps: UsersDeps,
  appId: string,
  input: CreateMappingInput,
  cdiVersion = '5.4',
) {
  const superTokensUserId = input.superTokensUserId.trim();
  if (superTokensUserId === '') {
    throw new BadRequestError("Field name 'superTokensUserId' cannot be an empty String");
  }
  const externalUserId = input.externalUserId.trim();
  if (externalUserId === '') throw new BadRequestError("Field name 'externalUserId' cannot be an empty String");
  const info = input.externalUserIdInfo?.trim();
  if (info === '') throw new BadRequestError("Field name 'externalUserIdInfo' cannot be an empty String");

  return reread(MAPPING_REREADS, async () => {
    const existingExternal = await deps.store.getMappingByExternalId(appId, externalUserId);
    if (existingExternal) {
      return {
        status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
        doesSuperTokensUserIdExist: existingExternal.superTokensUserId === superTokensUserId,
        doesExternalUserIdExist: true,
      };
    }
    const user = await deps.store.getUserBySuperTokensId(appId, superTokensUserId);
    if (!user) return { status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' };
    if (!input.force) {
      if (await deps.store.getUserBySuperTokensId(appId, externalUserId)) {
        throw new BadRequestError(EXTERNAL_ID_IS_USER_ID);
      }
      const kinds = await dataKindsOf(deps, appId, superTokensUserId, user);
      const blocking =
        cdiAtLeast(cdiVersion, '4.0') && kinds.length === 1 && kinds[0] === 'EmailVerification' ? [] : kinds;
      if (blocking[0] !== undefined) throw inUse(blocking[0]);
    }
    if (user.externalIds[superTokensUserId]) {
      return {
        status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
        doesSuperTokensUserIdExist: true,
        doesExternalUserIdExist: false,
      };
    }
    const after: UserRecord = {
      ...user,
      externalIds: {
        ...user.externalIds,
        [superTokensUserId]: { externalUserId, ...(info !== undefined ? { externalUserIdInfo: info } : {}) },
      },
      version: user.version + 1,
    };
    const result = await writePlan(deps.store, appId, {
      changes: [{ before: user, after }],
      ...(input.force ? {} : { externalIdsNotUserIds: [externalUserId] }),
    });
    if (result.ok) return { status: 'OK' };
    if (result.failed.some((e) => e.kind === 'externalIdIsUserId')) throw new BadRequestError(EXTERNAL_ID_IS_USER_ID);
    // externalId taken meanwhile, or the user changed: the next round reports or retries.
    return READ_AGAIN;
  });
}

/** The mapping an id names as `userIdType` says (for `ANY`: as a SuperTokens id first), with its user. */
async function findMapping(
  deps: UsersDeps,
  appId: string,
  userId: string,
  userIdType: UserIdType,
): Promise<{ mapping: UserIdMapping; user: UserRecord } | undefined> {
  if (userIdType !== 'EXTERNAL') {
    const user = await deps.store.getUserBySuperTokensId(appId, userId);
    const mapped = user?.externalIds[userId];
    if (user && mapped) return { mapping: { superTokensUserId: userId, ...mapped }, user };
    if (userIdType === 'SUPERTOKENS') return undefined;
  }
  const mapping = await deps.store.getMappingByExternalId(appId, userId);
  if (!mapping) return undefined;
  const user = await deps.store.getUserBySuperTokensId(appId, mapping.superTokensUserId);
  return user ? { mapping, user } : undefined;
}

/** The user with the mapping of `superTokensUserId` replaced (or, `undefined`, removed). */
function withMapping(
  user: UserRecord,
  superTokensUserId: string,
  mapping: UserRecord['externalIds'][string] | undefined,
) {
  const { [superTokensUserId]: _old, ...others } = user.externalIds;
  return {
    ...user,
    externalIds: mapping ? { ...others, [superTokensUserId]: mapping } : others,
    version: user.version + 1,
  };
}

export interface RemoveMappingInput {
  readonly userId: string;
  readonly userIdType: UserIdType;
  readonly force: boolean;
}

/**
 * `POST /recipe/userid/map/remove` → `{status:"OK", didMappingExist}`. The mapping the id names
 * (for `ANY`, as a SuperTokens id first, else as an external id) is removed. Without `force`, data
 * kept under the external id (sessions, metadata, roles, email verification, TOTP devices) refuses
 * it with the reference's 400 `UserId is already in use in <recipe> recipe` — unless the external id
 * is itself a SuperTokens user id, whose data it is.
 */
export async function removeUserIdMapping(deps: UsersDeps, appId: string, input: RemoveMappingInput) {
  return reread(MAPPING_REREADS, async () => {
    const found = await findMapping(deps, appId, input.userId, input.userIdType);
    if (!found) return { status: 'OK', didMappingExist: false };
    const { mapping, user } = found;
    if (!input.force) {
      const externalIsUser = await deps.store.getUserBySuperTokensId(appId, mapping.externalUserId);
      if (!externalIsUser) {
        const kinds = await deps.store.userIdDataKinds(appId, mapping.externalUserId, deps.now());
        if (kinds[0] !== undefined) throw inUse(kinds[0]);
      }
    }
    const after = withMapping(user, mapping.superTokensUserId, undefined);
    const result = await writePlan(deps.store, appId, { changes: [{ before: user, after }] });
    return result.ok ? { status: 'OK', didMappingExist: true } : READ_AGAIN;
  });
}

export interface UpdateMappingInfoInput {
  readonly userId: string;
  readonly userIdType: UserIdType;
  /** The new info; `undefined` (JSON null) removes it. */
  readonly externalUserIdInfo?: string;
}

/**
 * `PUT /recipe/userid/external-user-id-info` → `{status:"OK"}`, or `UNKNOWN_MAPPING_ERROR` when the
 * id names no mapping (for `ANY`: as a SuperTokens id when it names a user, else as an external
 * id). A JSON null removes the info.
 */
export async function updateExternalUserIdInfo(deps: UsersDeps, appId: string, input: UpdateMappingInfoInput) {
  return reread(MAPPING_REREADS, async () => {
    let type = input.userIdType;
    if (type === 'ANY') {
      type = (await deps.store.getUserBySuperTokensId(appId, input.userId)) ? 'SUPERTOKENS' : 'EXTERNAL';
    }
    const found = await findMapping(deps, appId, input.userId, type);
    if (!found) return { status: 'UNKNOWN_MAPPING_ERROR' };
    const { mapping, user } = found;
    const after = withMapping(user, mapping.superTokensUserId, {
      externalUserId: mapping.externalUserId,
      ...(input.externalUserIdInfo !== undefined ? { externalUserIdInfo: input.externalUserIdInfo } : {}),
    });
    const result = await writePlan(deps.store, appId, { changes: [{ before: user, after }] });
    return result.ok ? { status: 'OK' } : READ_AGAIN;
  });
}
