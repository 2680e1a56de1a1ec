/** User id mappings: `GET /recipe/userid/map` and `POST /recipe/userid/map`. */
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { has, optionalBoolean, requiredString } from '#functions/shared/input.js';
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import type { UsersDeps } from './deps.js';
import type { UserRecord } from './model.js';
import type { UserIdMapping } from './ports.js';
import { writePlan } from './write.js';

export type UserIdType = 'SUPERTOKENS' | 'EXTERNAL' | 'ANY';

export function parseUserIdType(raw: string | undefined): UserIdType {
  if (raw === undefined) return 'ANY';
  const value = raw.trim();
  if (value === 'SUPERTOKENS' || value === 'EXTERNAL' || value === 'ANY') return value;
  throw new BadRequestError("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'");
}

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

/** A string or JSON null (→ undefined) field, as the reference's `parseStringOrJSONNullOrThrowError`. */
function optionalStringOrNull(body: Readonly<Record<string, unknown>>, name: string): string | undefined {
  if (!has(body, name) || body[name] === null) return undefined;
  const value = body[name];
  if (typeof value !== 'string') throw new BadRequestError(invalidFieldMessage(name));
  return value;
}

/** The body of `POST /recipe/userid/map`. */
export function parseCreateMapping(body: Readonly<Record<string, unknown>>): CreateMappingInput {
  const info = optionalStringOrNull(body, 'externalUserIdInfo');
  return {
    superTokensUserId: requiredString(body, 'superTokensUserId'),
    externalUserId: requiredString(body, 'externalUserId'),
    ...(info !== undefined ? { externalUserIdInfo: info } : {}),
    force: optionalBoolean(body, 'force') ?? false,
  };
}

const MAPPING_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'user id mapping kept conflicting with concurrent changes',
};

/** `POST /recipe/userid/map`. */
export async function createUserIdMapping(deps: UsersDeps, appId: string, input: CreateMappingInput) {
  const superTokensUserId = input.superTokensUserId.trim();
  if (superTokensUserId === '') {
    throw new BadRequestError("Field name 'superTokensUserId' cannot be an empty String");
  }
  const externalUserId = input.externalUserId.trim();
  if (externalUserId === '') throw new BadRequestError("Field name 'externalUserId' cannot be an empty String");
  const info = input.externalUserIdInfo?.trim();
  if (info === '') throw new BadRequestError("Field name 'externalUserIdInfo' cannot be an empty String");

  return reread(MAPPING_REREADS, async () => {
    const user = await deps.store.getUserBySuperTokensId(appId, superTokensUserId);
    if (!user) return { status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' };
    const existingForUser = user.externalIds[superTokensUserId];
    const existingExternal = await deps.store.getMappingByExternalId(appId, externalUserId);
    if (existingForUser || existingExternal) {
      return {
        status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
        doesSuperTokensUserIdExist: existingForUser !== undefined,
        doesExternalUserIdExist: existingExternal !== undefined,
      };
    }
    if (!input.force && (await deps.store.getUserBySuperTokensId(appId, externalUserId))) {
      throw new BadRequestError('Cannot create a userId mapping where the externalId is also a SuperTokens userID');
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
    if (result.failed.some((e) => e.kind === 'externalIdIsUserId')) {
      throw new BadRequestError('Cannot create a userId mapping where the externalId is also a SuperTokens userID');
    }
    // externalId taken meanwhile, or the user changed: the next round reports or retries.
    return READ_AGAIN;
  });
}
