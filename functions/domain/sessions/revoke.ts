/**
 * A user's sessions (docs/sessions.md "Routes"): `GET /<tenant>/recipe/session/user` lists their
 * handles and `POST /<tenant>/recipe/session/remove` revokes them (or the sessions named by handle),
 * in one tenant or across tenants, for the user's linked accounts too.
 */
import { PUBLIC_TENANT_ID } from '#functions/contract/tenants.js';
import { ForbiddenError } from '#functions/shared/errors.js';
import type { SessionDeps } from './deps.js';
import { MAX_HANDLE_LENGTH } from './live-session.js';
import { sessionUserIds } from './user-ids.js';

const ONLY_PUBLIC = 'Only public tenantId can call this app specific API';

/** Handles of the live sessions of `userId` (and of its user's other ids when `linked`). */
async function handlesOf(
  deps: SessionDeps,
  appId: string,
  tenantId: string | undefined,
  userId: string,
  linked: boolean,
): Promise<string[]> {
  const ids = linked ? (await sessionUserIds(deps, appId, userId)).all : [userId];
  if (!ids.includes(userId)) ids.push(userId);
  const lists = await Promise.all(ids.map((id) => deps.sessions.handlesOfUser(appId, id, tenantId)));
  return [...new Set(lists.flat())];
}

/** `GET /<tenant>/recipe/session/user`. */
export async function sessionHandlesOfUser(
  deps: SessionDeps,
  target: { appId: string; tenantId: string },
  input: { userId: string; acrossAllTenants: boolean; linkedAccounts: boolean },
) {
  if (input.acrossAllTenants && target.tenantId !== PUBLIC_TENANT_ID) throw new ForbiddenError(ONLY_PUBLIC);
  const tenant = input.acrossAllTenants ? undefined : target.tenantId;
  return {
    status: 'OK' as const,
    sessionHandles: await handlesOf(deps, target.appId, tenant, input.userId, input.linkedAccounts),
  };
}

export type RevokeInput =
  | { readonly userId: string; readonly acrossAllTenants: boolean; readonly linkedAccounts: boolean }
  | { readonly sessionHandles: readonly string[] };

/** `POST /<tenant>/recipe/session/remove`. */
export async function revokeSessions(
  deps: SessionDeps,
  target: { appId: string; tenantId: string },
  input: RevokeInput,
) {
  let handles: readonly string[];
  if ('userId' in input) {
    if (input.acrossAllTenants && target.tenantId !== PUBLIC_TENANT_ID) throw new ForbiddenError(ONLY_PUBLIC);
    handles = await handlesOf(
      deps,
      target.appId,
      input.acrossAllTenants ? undefined : target.tenantId,
      input.userId,
      input.linkedAccounts,
    );
  } else {
    handles = input.sessionHandles.filter((h) => h.length <= MAX_HANDLE_LENGTH);
  }
  return { status: 'OK' as const, sessionHandlesRevoked: await deps.sessions.remove(target.appId, handles) };
}
