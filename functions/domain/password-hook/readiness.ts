/**
 * Cutover readiness of the password migration (docs/password-migration-hook.md "Readiness"):
 * how many login methods are still pending the hook and how many it migrated (counters kept by
 * the writes, never a scan), and the pending ones, page by page, so the team can mail them a
 * reset link or import their hashes later.
 */
import { BadRequestError } from '#functions/shared/errors.js';
import type { PendingPasswordPosition, UserStore } from '../users/ports.js';

const PENDING_PAGE_MAX = 500;
const PENDING_PAGE_DEFAULT = 100;

/** `GET /appid-<a>/password-migration/status`. */
export async function passwordMigrationStatus(store: UserStore, appId: string) {
  const { pending, migrated } = await store.passwordMigrationCounts(appId);
  return { status: 'OK' as const, pending, migrated };
}

/** Pagination tokens: Base64url of `<shard>:<sort key>` of the last entry of the previous page. */
function encodePendingToken(position: PendingPasswordPosition): string {
  return Buffer.from(`${position.shard}:${position.sortKey}`, 'utf8').toString('base64url');
}

function decodePendingToken(token: string): PendingPasswordPosition {
  const invalid = new BadRequestError('invalid pagination token');
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(token)) throw invalid;
  const match = /^(\d{1,2}):(\d{15}#[^#]+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (!match) throw invalid;
  const shard = Number(match[1]);
  if (shard > 15) throw invalid;
  return { shard, sortKey: match[2] as string };
}

/** `GET /appid-<a>/password-migration/pending?limit=&paginationToken=`. */
export async function listPendingPasswords(
  store: UserStore,
  appId: string,
  input: { limit?: number | undefined; paginationToken?: string | undefined },
) {
  const limit = input.limit ?? PENDING_PAGE_DEFAULT;
  if (limit > PENDING_PAGE_MAX) throw new BadRequestError(`max limit allowed is ${PENDING_PAGE_MAX}`);
  if (limit < 1) throw new BadRequestError('limit must a positive integer with min value 1');
  const after = input.paginationToken === undefined ? undefined : decodePendingToken(input.paginationToken);
  const page = await store.listPasswordPending(appId, limit, after);
  return {
    status: 'OK' as const,
    users: page.users,
    ...(page.next ? { nextPaginationToken: encodePendingToken(page.next) } : {}),
  };
}
