/**
 * Use cases of the status API (docs/import-pipeline.md "Status API"): list staged users newest first, count them
 * by status, remove them by id. Input rules and message texts are the reference's.
 */
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';
import { optionalIntQuery } from '#functions/shared/input.js';
import type { ImportLoginMethod, ImportUser } from '../import/types.js';
import {
  type ClaimedRow,
  type ClearImportUser,
  type ClearLoginMethod,
  STAGED_STATUS_VALUES,
  type StagedCursor,
  type StagedRow,
  type StagedStatus,
  type StagingStore,
} from './staging-ports.js';

const INVALID_STATUS_MESSAGE = 'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!';
const INVALID_TOKEN_MESSAGE = 'invalid pagination token';
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 500;
const MAX_REMOVE_IDS = 500;

type Query = Readonly<Record<string, string | undefined>>;

/** `status` query parameter: absent, or exactly NEW, PROCESSING or FAILED (case-sensitive). */
export function parseStatus(query: Query): StagedStatus | undefined {
  const status = query.status;
  if (status === undefined) return undefined;
  if (!(STAGED_STATUS_VALUES as readonly string[]).includes(status)) throw new BadRequestError(INVALID_STATUS_MESSAGE);
  return status as StagedStatus;
}

/**
 * Pagination tokens are opaque to clients. They carry the first row of the next page as the
 * reference's do: Base64 of `<id>;<createdAt>`.
 */
export function encodeToken(cursor: StagedCursor): string {
  return Buffer.from(`${cursor.id};${cursor.createdAt}`, 'utf8').toString('base64');
}

export function decodeToken(token: string): StagedCursor {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) throw new BadRequestError(INVALID_TOKEN_MESSAGE);
  const parts = Buffer.from(token, 'base64').toString('utf8').split(';');
  const [id, createdAt] = parts;
  if (parts.length !== 2 || !id || !/^[A-Za-z0-9-]{1,64}$/.test(id) || !createdAt || !/^\d{1,15}$/.test(createdAt)) {
    throw new BadRequestError(INVALID_TOKEN_MESSAGE);
  }
  return { id, createdAt: Number(createdAt) };
}

export interface ListQuery {
  readonly status: StagedStatus | undefined;
  readonly limit: number;
  readonly from: StagedCursor | undefined;
}

/** `GET /bulk-import/users` query: limit (int, 1…500, default 100), status, paginationToken. */
export function parseListQuery(query: Query): ListQuery {
  const limit = optionalIntQuery(query, 'limit') ?? DEFAULT_LIST_LIMIT;
  if (limit > MAX_LIST_LIMIT) throw new BadRequestError(`Max limit allowed is ${MAX_LIST_LIMIT}`);
  if (limit < 1) throw new BadRequestError('limit must a positive integer with min value 1');
  const status = parseStatus(query);
  const token = query.paginationToken;
  return { status, limit, from: token === undefined ? undefined : decodeToken(token) };
}

/**
 * Staged credentials never leave the core (deliberate difference 4): `plainTextPassword`,
 * `passwordHash` and TOTP `secretKey` are OMITTED from listed users (no marker); the other fields
 * are the stored, normalised values.
 */
function redactLoginMethod(lm: ImportLoginMethod | ClearLoginMethod): Record<string, unknown> {
  const {
    plainTextPassword: _p,
    passwordHash: _h,
    ...rest
  } = lm as ImportLoginMethod & {
    plainTextPassword?: string;
    passwordHash?: string;
  };
  return rest;
}

function redactUser(user: ImportUser | ClearImportUser): Record<string, unknown> {
  return {
    ...user,
    totpDevices: user.totpDevices.map(({ secretKey: _s, ...device }) => device),
    loginMethods: user.loginMethods.map(redactLoginMethod),
  };
}

/**
 * A listed user: the stored record with nulls omitted, its status, error (if any) and times. A
 * listed row holds no credentials (StagedRow); they are left out again whatever row is given.
 */
export function toListedUser(row: StagedRow | ClaimedRow): Record<string, unknown> {
  return {
    ...redactUser(row.user),
    status: row.status,
    ...(row.errorMessage !== undefined ? { errorMessage: row.errorMessage } : {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** `{"status":"OK","users":[…],"nextPaginationToken"?}`: newest first (`createdAt DESC, id DESC`). */
export async function listStagedUsers(
  deps: { store: StagingStore },
  appId: string,
  query: ListQuery,
): Promise<Record<string, unknown>> {
  const page = await deps.store.list(appId, {
    limit: query.limit,
    ...(query.status ? { status: query.status } : {}),
    ...(query.from ? { from: query.from } : {}),
  });
  return {
    status: 'OK',
    users: page.rows.map(toListedUser),
    ...(page.next ? { nextPaginationToken: encodeToken(page.next) } : {}),
  };
}

export async function countStagedUsers(
  deps: { store: StagingStore },
  appId: string,
  status: StagedStatus | undefined,
): Promise<number> {
  return deps.store.count(appId, status);
}

/** The checks of a remove request before the app check; `[]` short-circuits to an empty answer. */
export function parseRemoveIds(body: Readonly<Record<string, unknown>> | undefined): string[] {
  const ids = body?.ids;
  if (!Array.isArray(ids)) throw new BadRequestError(invalidFieldMessage('ids'));
  if (ids.length > MAX_REMOVE_IDS) {
    throw new BadRequestError(`Field name 'ids' cannot contain more than ${MAX_REMOVE_IDS} elements`);
  }
  for (const id of ids) {
    if (typeof id !== 'string') throw new BadRequestError(invalidFieldMessage('ids'));
    if (id === '') throw new BadRequestError("Field name 'ids' cannot contain an empty string");
    checkIdLength('stagedId', id, 'ids');
  }
  return ids as string[];
}

/** `{"deletedIds":[…],"invalidIds":[…]}` in request order (no `status` key). */
export async function removeStagedUsers(
  deps: { store: StagingStore },
  appId: string,
  ids: readonly string[],
): Promise<{ deletedIds: string[]; invalidIds: string[] }> {
  const deleted = ids.length === 0 ? new Set<string>() : await deps.store.remove(appId, ids);
  const deletedIds: string[] = [];
  const invalidIds: string[] = [];
  for (const id of ids) (deleted.has(id) ? deletedIds : invalidIds).push(id);
  return { deletedIds, invalidIds };
}
