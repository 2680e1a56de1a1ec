/**
 * The dashboard's own users and sessions (docs/dashboard.md), in the app's partition (key
 * builders in keys/dashboard.ts):
 *
 * - user: `APP#<a>` / `DASHBOARD#USER#<userId>`, attributes `userId`, `email`, `passwordHash`,
 *   `timeJoined`;
 * - email reservation: `APP#<a>` / `DASHBOARD#EMAIL#<email>`, attribute `userId` (written and
 *   deleted with its user, in one transaction);
 * - session: `APP#<a>` / `DASHBOARD#SESSION#<SHA-256 of the id>`, attributes `userId`,
 *   `timeCreated`, `expiry`, `expiresAt` (TTL: DynamoDB sweeps it after it expired); GSI1
 *   `APP#<a>#DASHBOARD#<userId>#SESSIONS` / `<timeCreated>#<digest>` (a user's sessions).
 *
 * Deleting the app deletes them with the rest of its partition (app-purge.ts).
 */
import type { DashboardSession, DashboardStore, DashboardUser } from '#functions/domain/dashboard/ports.js';
import {
  appPartition,
  DASHBOARD_USER_PREFIX,
  dashboardEmailSortKey,
  dashboardSessionSortKey,
  dashboardUserSessionSortKey,
  dashboardUserSessionsPartition,
  dashboardUserSortKey,
} from './keys/dashboard.js';
import {
  batchDeleteAll,
  defineEntity,
  deleteItem,
  getItem,
  type Item,
  type Key,
  putItem,
  queryAll,
  type Table,
  type TransactItem,
  transact,
  ttlSeconds,
} from './kit/index.js';

type UserKey = { appId: string; userId: string };
const userEntity = defineEntity({
  type: 'DASHBOARD_USER',
  key: (u: UserKey) => ({ PK: appPartition(u.appId), SK: dashboardUserSortKey(u.userId) }),
});

type EmailKey = { appId: string; email: string };
const emailEntity = defineEntity({
  type: 'DASHBOARD_EMAIL',
  key: (e: EmailKey) => ({ PK: appPartition(e.appId), SK: dashboardEmailSortKey(e.email) }),
});

type SessionKey = { appId: string; digest: string };
type SessionIndex = { appId: string; userId: string; timeCreated: number; digest: string };
const sessionEntity = defineEntity({
  type: 'DASHBOARD_SESSION',
  key: (s: SessionKey) => ({ PK: appPartition(s.appId), SK: dashboardSessionSortKey(s.digest) }),
  indexes: {
    GSI1: {
      pk: (s: SessionIndex) => dashboardUserSessionsPartition(s.appId, s.userId),
      sk: (s: SessionIndex) => dashboardUserSessionSortKey(s.timeCreated, s.digest),
    },
  },
});

const userOf = (item: Item): DashboardUser => ({
  userId: item.userId as string,
  email: item.email as string,
  passwordHash: item.passwordHash as string,
  timeJoined: item.timeJoined as number,
});

const sessionOf = (item: Item): DashboardSession => ({
  userId: item.userId as string,
  timeCreated: item.timeCreated as number,
  expiry: item.expiry as number,
});

/** The user item unchanged since it was read (same email and hash). */
const unchanged = (user: DashboardUser) => ({
  ConditionExpression: 'email = :email AND passwordHash = :hash',
  ExpressionAttributeValues: { ':email': user.email, ':hash': user.passwordHash },
});

function emailReservationDelete(table: Table, appId: string, user: DashboardUser): TransactItem {
  return {
    Delete: {
      TableName: table.name,
      Key: emailEntity.key({ appId, email: user.email }),
      ConditionExpression: 'userId = :id',
      ExpressionAttributeValues: { ':id': user.userId },
    },
  };
}

function emailReservationPut(table: Table, appId: string, email: string, userId: string): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: emailEntity.item({ appId, email }, { userId }),
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

async function getUserById(table: Table, appId: string, userId: string): Promise<DashboardUser | undefined> {
  const item = await getItem(table, userEntity.key({ appId, userId }));
  return item ? userOf(item) : undefined;
}

/** Keys of a user's session items, found through GSI1. */
async function sessionKeysOf(table: Table, appId: string, userId: string): Promise<Key[]> {
  const items = await queryAll(
    table,
    { index: 'GSI1', pk: dashboardUserSessionsPartition(appId, userId) },
    { attributes: ['PK', 'SK'] },
  );
  return items.map((item) => ({ PK: item.PK as string, SK: item.SK as string }));
}

/** The dashboard use cases' storage port for one table. */
export function createDashboardStore(table: Table): DashboardStore {
  return {
    async createUser(appId, user) {
      const result = await transact(table, [
        {
          Put: {
            TableName: table.name,
            Item: userEntity.item(
              { appId, userId: user.userId },
              { userId: user.userId, email: user.email, passwordHash: user.passwordHash, timeJoined: user.timeJoined },
            ),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        emailReservationPut(table, appId, user.email, user.userId),
      ]);
      if (result.ok) return 'created';
      return result.failedIndexes.includes(1) ? 'email-taken' : 'id-taken';
    },

    getUserById: (appId, userId) => getUserById(table, appId, userId),

    /** The email's reservation names the user; a reservation whose user is gone names nobody. */
    async getUserByEmail(appId, email) {
      const reservation = await getItem(table, emailEntity.key({ appId, email }));
      if (!reservation) return undefined;
      const user = await getUserById(table, appId, reservation.userId as string);
      return user?.email === email ? user : undefined;
    },

    /** Access pattern "dashboard users of an app": Query `APP#<a>`, SK begins_with `DASHBOARD#USER#`. */
    async listUsers(appId) {
      const items = await queryAll(
        table,
        { pk: appPartition(appId), sk: { beginsWith: DASHBOARD_USER_PREFIX } },
        { consistent: true },
      );
      return items.map(userOf).sort((a, b) => a.timeJoined - b.timeJoined || a.userId.localeCompare(b.userId));
    },

    async updateUser(appId, current, change) {
      const set: Record<string, string> = {};
      if (change.email !== undefined) set.email = change.email;
      if (change.passwordHash !== undefined) set.passwordHash = change.passwordHash;
      const names = Object.keys(set);
      const update: TransactItem = {
        Update: {
          TableName: table.name,
          Key: userEntity.key({ appId, userId: current.userId }),
          UpdateExpression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
          ...unchanged(current),
          ExpressionAttributeValues: {
            ...unchanged(current).ExpressionAttributeValues,
            ...Object.fromEntries(names.map((name, i) => [`:v${i}`, set[name]])),
          },
        },
      };
      const moves =
        change.email === undefined
          ? []
          : [
              emailReservationDelete(table, appId, current),
              emailReservationPut(table, appId, change.email, current.userId),
            ];
      const result = await transact(table, [update, ...moves]);
      if (result.ok) return 'updated';
      return result.failedIndexes.includes(2) ? 'email-taken' : 'changed';
    },

    async deleteUser(appId, current) {
      const result = await transact(table, [
        {
          Delete: {
            TableName: table.name,
            Key: userEntity.key({ appId, userId: current.userId }),
            ...unchanged(current),
          },
        },
        emailReservationDelete(table, appId, current),
      ]);
      return result.ok ? 'deleted' : 'changed';
    },

    async createSession(appId, digest, session) {
      const index = { appId, userId: session.userId, timeCreated: session.timeCreated, digest };
      await putItem(
        table,
        sessionEntity.item(
          { appId, digest },
          {
            userId: session.userId,
            timeCreated: session.timeCreated,
            expiry: session.expiry,
            expiresAt: ttlSeconds(session.expiry),
          },
          { GSI1: index },
        ),
      );
    },

    async getSession(appId, digest) {
      const item = await getItem(table, sessionEntity.key({ appId, digest }));
      return item ? sessionOf(item) : undefined;
    },

    async deleteSession(appId, digest) {
      await deleteItem(table, sessionEntity.key({ appId, digest }));
    },

    /** Access pattern "sessions of a dashboard user": Query GSI1 `APP#<a>#DASHBOARD#<userId>#SESSIONS`. */
    async listSessions(appId, userId) {
      const items = await queryAll(table, { index: 'GSI1', pk: dashboardUserSessionsPartition(appId, userId) });
      return items.map(sessionOf);
    },

    async deleteSessionsOf(appId, userId) {
      await batchDeleteAll(table, await sessionKeysOf(table, appId, userId));
    },
  };
}
