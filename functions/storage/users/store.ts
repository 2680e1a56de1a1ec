/**
 * The users storage port (functions/domain/users/ports.ts) for one table. Its jobs live beside it:
 * items.ts (what a user record owns in the table), write.ts (the atomic write), reads.ts (the
 * access patterns), password.ts (the hash upgrade after a sign-in), purge.ts (app and tenant deletion).
 */
import type { UserStore, UserWrite } from '#functions/domain/users/ports.js';
import type { Envelope } from '../crypto/envelope.js';
import type { Table } from '../kit/index.js';
import { purgeUserData, purgeUserTenantData, userIdDataKinds } from '../user-data.js';
import { primaryCheckMode } from './guard.js';
import { replacePasswordHash } from './password.js';
import { listPasswordPending, passwordMigrationCounts } from './password-pending.js';
import { previewCommits } from './preview.js';
import {
  countUsers,
  getEmailPasswordUser,
  getMappingByExternalId,
  getUserBySuperTokensId,
  listUsers,
  primaryUsersHolding,
  searchUsers,
  usersByAccountInfo,
} from './reads.js';
import { DynamoUserWrite } from './write.js';

/**
 * `envelope` seals the TOTP secrets a write imports (totp-store.ts); it is asked for only then, so
 * a function that writes no device never needs the credentials key.
 */
export function createUserStore(table: Table, envelope?: () => Envelope): UserStore {
  const own = (write: UserWrite): DynamoUserWrite => {
    if (!(write instanceof DynamoUserWrite) || write.table.name !== table.name)
      throw new Error('a write of another store');
    return write;
  };
  return {
    getUserBySuperTokensId: (appId, id) => getUserBySuperTokensId(table, appId, id),
    getMappingByExternalId: (appId, externalUserId) => getMappingByExternalId(table, appId, externalUserId),
    getEmailPasswordUser: (appId, tenantId, email) => getEmailPasswordUser(table, appId, tenantId, email),
    usersByAccountInfo: (appId, tenantId, query) => usersByAccountInfo(table, appId, tenantId, query),
    primaryUsersHolding: (appId, infos) => primaryUsersHolding(table, appId, infos),
    listUsers: (appId, tenantId, query) => listUsers(table, appId, tenantId, query),
    searchUsers: (appId, tenantId, query) => searchUsers(table, appId, tenantId, query),
    countUsers: (appId, tenantId, masks) => countUsers(table, appId, tenantId, masks),
    replacePasswordHash: (appId, user, recipeUserId, replacement) =>
      replacePasswordHash(table, appId, user, recipeUserId, replacement),
    passwordMigrationCounts: (appId) => passwordMigrationCounts(table, appId),
    listPasswordPending: (appId, limit, after) => listPasswordPending(table, appId, limit, after),
    newWrite: (appId, options) => new DynamoUserWrite(table, appId, envelope, options?.primaryChecks),
    primaryCheckMode: (appId) => primaryCheckMode(table, appId),
    commit: (write) => own(write).commit(),
    previewCommits: (writes) => previewCommits(table, writes, own),
    userIdDataKinds: (appId, userId, now) => userIdDataKinds(table, appId, userId, now),
    purgeUserIdTenantData: (appId, userId, tenantId) => purgeUserTenantData(table, appId, userId, tenantId),
    async purgeUserIdData(appId, userIds) {
      for (const userId of new Set(userIds)) await purgeUserData(table, appId, userId);
    },
  };
}
