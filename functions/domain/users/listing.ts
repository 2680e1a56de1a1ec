/**
 * Listing and counting an app's users: `GET /<t>/users` (pages, order, recipe filter, pagination
 * tokens) and `GET /<t>/users/count`.
 */
import { BadRequestError } from '#functions/shared/errors.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import type { UsersDeps } from './deps.js';
import { FILTER_RECIPE_IDS, recipeBit, toUserJson } from './model.js';
import type { UserPosition } from './ports.js';
import { parseUserSearch, searchUsers } from './search.js';

const RECIPE_SET = new Set<string>(FILTER_RECIPE_IDS);

/** `includeRecipeIds` (comma-separated) → recipe-combination masks to include; undefined = all. */
export function masksFor(includeRecipeIds: string | undefined): number[] | undefined {
  if (includeRecipeIds === undefined) return undefined;
  const ids = includeRecipeIds
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (ids.length === 0) return undefined;
  let wanted = 0;
  for (const id of ids) {
    if (!RECIPE_SET.has(id)) throw new BadRequestError(`Unknown recipe ID: ${id}`);
    wanted |= recipeBit(id);
  }
  return ALL_MASKS.filter((mask) => (mask & wanted) !== 0);
}

/** Every combination of the four recipes' bits (model.ts `recipeBit`). */
const ALL_MASKS = Array.from({ length: 15 }, (_, i) => i + 1);

const USERS_PAGE_MAX = 500;
const USERS_PAGE_DEFAULT = 100;

/** Pagination tokens: Base64 of `<userId>;<timeJoined>` of the last user of the previous page. */
export function encodeToken(position: UserPosition): string {
  return Buffer.from(`${position.userId};${position.timeJoined}`, 'utf8').toString('base64');
}

export function decodeToken(token: string): UserPosition {
  const invalid = new BadRequestError('invalid pagination token');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) throw invalid;
  const text = Buffer.from(token, 'base64').toString('utf8');
  const separator = text.lastIndexOf(';');
  if (separator <= 0) throw invalid;
  const userId = text.slice(0, separator);
  const time = text.slice(separator + 1);
  if (!/^\d{1,15}$/.test(time) || userId.includes('#') || userId.length > ID_LIMITS.userId) throw invalid;
  return { userId, timeJoined: Number(time) };
}

export interface ListUsersInput {
  readonly timeJoinedOrder?: string;
  readonly limit?: number;
  readonly paginationToken?: string;
  readonly includeRecipeIds?: string;
  /** Search terms (`;`-separated) of the email, phone and provider search (search.ts). */
  readonly email?: string;
  readonly phone?: string;
  readonly provider?: string;
}

/**
 * `GET /<t>/users` (CDI ≥ 4.0 shape: plain user objects). With search terms (`email`, `phone`,
 * `provider`) it is a search, as in the reference: the pagination token is still checked but not
 * used, `includeRecipeIds` and `limit` do not narrow the answer (a limit above the page maximum
 * is allowed), at most 1000 users come back and no pagination token.
 */
export async function listUsers(deps: UsersDeps, target: { appId: string; tenantId: string }, input: ListUsersInput) {
  const masks = masksFor(input.includeRecipeIds);
  const order = input.timeJoinedOrder ?? 'ASC';
  if (order !== 'ASC' && order !== 'DESC') throw new BadRequestError('timeJoinedOrder can be either ASC OR DESC');
  const search = parseUserSearch(input);
  const limit = input.limit ?? USERS_PAGE_DEFAULT;
  if (limit > USERS_PAGE_MAX && !search) throw new BadRequestError(`max limit allowed is ${USERS_PAGE_MAX}`);
  if (limit < 1) throw new BadRequestError('limit must a positive integer with min value 1');
  const after = input.paginationToken === undefined ? undefined : decodeToken(input.paginationToken);
  if (search) {
    const found = await searchUsers(deps, target, search, order);
    return { status: 'OK', users: found.map(toUserJson) };
  }
  const page = await deps.store.listUsers(target.appId, target.tenantId, {
    order,
    limit,
    ...(after ? { after } : {}),
    ...(masks ? { masks } : {}),
  });
  return {
    status: 'OK',
    users: page.users.map(toUserJson),
    ...(page.next ? { nextPaginationToken: encodeToken(page.next) } : {}),
  };
}

/**
 * `GET /<t>/users/count`. With `includeAllTenants`, every user of the app once (the app-wide
 * counter counts a user once however many tenants it belongs to).
 */
export async function countUsers(
  deps: UsersDeps,
  target: { appId: string; tenantId: string },
  input: { includeRecipeIds?: string; includeAllTenants: boolean },
) {
  const masks = masksFor(input.includeRecipeIds) ?? ALL_MASKS;
  const count = await deps.store.countUsers(target.appId, input.includeAllTenants ? undefined : target.tenantId, masks);
  return { status: 'OK', count };
}
