/**
 * Sessions (docs/sessions.md "Storage"). Item `APP#<a>#SESSION#<handle>` / `SESSION` with the
 * user ids, tenant, the hash of the current refresh token (`rt2`, never a token), the access-token
 * payload and session data (JSON text: DynamoDB numbers cannot hold every JSON number), timestamps,
 * and `expiresAt` (epoch seconds: DynamoDB's TTL removes an ended session); its GSI3 entry lists it
 * under its user id (keys/sessions.ts).
 */
import { isLive, type JsonObject, type SessionRecord } from '#functions/domain/sessions/model.js';
import type { SessionStore } from '#functions/domain/sessions/ports.js';
import { userDataIndexPartitionOf } from '../keys/metadata.js';
import { SESSION_SK, sessionPartition, userSessionSortKey, userSessionsPrefix } from '../keys/sessions.js';
import {
  batchDeleteAll,
  defineEntity,
  deleteItem,
  forEachLimited,
  getItem,
  type Item,
  type Key,
  putItem,
  queryAll,
  type Table,
  ttlSeconds,
  updateExpression,
  updateItem,
} from '../kit/index.js';

type SessionKey = { appId: string; handle: string };
type SessionIndex = { appId: string; userId: string; tenantId: string; handle: string };

export const sessionEntity = defineEntity({
  type: 'SESSION',
  subject: "The session's data",
  key: (s: SessionKey) => ({ PK: sessionPartition(s.appId, s.handle), SK: SESSION_SK }),
  indexes: {
    GSI3: {
      pk: (s: SessionIndex) => userDataIndexPartitionOf(s.appId, s.userId),
      sk: (s: SessionIndex) => userSessionSortKey(s.userId, s.tenantId, s.handle),
    },
  },
});

function recordOf(item: Item): SessionRecord {
  return {
    handle: item.handle as string,
    tenantId: item.tenantId as string,
    userId: item.userId as string,
    recipeUserId: item.recipeUserId as string,
    refreshTokenHash2: item.rt2 as string,
    userDataInJWT: JSON.parse(item.jwtJson as string) as JsonObject,
    userDataInDatabase: JSON.parse(item.dataJson as string) as JsonObject,
    expiresAt: item.expiresAtMs as number,
    createdAt: item.createdAt as number,
    useStaticKey: item.staticKey === true,
  };
}

const LIVE = { expression: 'attribute_exists(PK)' } as const;

/** Deletes a user id's sessions (by Query of its GSI3 shard; an index read, so eventually consistent). */
export async function purgeUserSessions(table: Table, appId: string, userId: string): Promise<void> {
  const items = await queryAll(
    table,
    { index: 'GSI3', pk: userDataIndexPartitionOf(appId, userId), sk: { beginsWith: userSessionsPrefix(userId) } },
    { attributes: ['PK', 'SK'] },
  );
  await batchDeleteAll(table, items as Key[]);
}

/** Deletes a user id's sessions in one tenant; how many there were. */
export async function purgeUserTenantSessions(
  table: Table,
  appId: string,
  userId: string,
  tenantId: string,
): Promise<number> {
  const items = await queryAll(
    table,
    {
      index: 'GSI3',
      pk: userDataIndexPartitionOf(appId, userId),
      sk: { beginsWith: userSessionsPrefix(userId, tenantId) },
    },
    { attributes: ['PK', 'SK'] },
  );
  await batchDeleteAll(table, items as Key[]);
  return items.length;
}

/** Whether a user id has a session that has not expired at `now` (by Query of its GSI3 shard). */
export async function hasLiveSession(table: Table, appId: string, userId: string, now: number): Promise<boolean> {
  const items = await queryAll(
    table,
    { index: 'GSI3', pk: userDataIndexPartitionOf(appId, userId), sk: { beginsWith: userSessionsPrefix(userId) } },
    { attributes: ['expiresAtMs'] },
  );
  return items.some((item) => isLive(item.expiresAtMs as number, now));
}

export function createSessionStore(table: Table): SessionStore {
  return {
    async create(appId, s) {
      const item = sessionEntity.item(
        { appId, handle: s.handle },
        {
          handle: s.handle,
          tenantId: s.tenantId,
          userId: s.userId,
          recipeUserId: s.recipeUserId,
          rt2: s.refreshTokenHash2,
          jwtJson: JSON.stringify(s.userDataInJWT),
          dataJson: JSON.stringify(s.userDataInDatabase),
          createdAt: s.createdAt,
          expiresAtMs: s.expiresAt,
          expiresAt: ttlSeconds(s.expiresAt),
          ...(s.useStaticKey ? { staticKey: true } : {}),
        },
        { GSI3: { appId, userId: s.recipeUserId, tenantId: s.tenantId, handle: s.handle } },
      );
      await putItem(table, item);
    },

    async get(appId, handle) {
      const item = await getItem(table, sessionEntity.key({ appId, handle }));
      return item ? recordOf(item) : undefined;
    },

    async rotate(appId, handle, expectedHash2, next) {
      const { ok } = await updateItem(
        table,
        sessionEntity.key({ appId, handle }),
        updateExpression({
          rt2: next.refreshTokenHash2,
          expiresAtMs: next.expiresAt,
          expiresAt: ttlSeconds(next.expiresAt),
          staticKey: next.useStaticKey,
        }),
        { expression: 'rt2 = :expected', values: { ':expected': expectedHash2 } },
        { subject: sessionEntity.subject },
      );
      return ok;
    },

    async update(appId, handle, changes) {
      const set: Item = {};
      if (changes.userDataInDatabase) set.dataJson = JSON.stringify(changes.userDataInDatabase);
      if (changes.userDataInJWT) set.jwtJson = JSON.stringify(changes.userDataInJWT);
      if (Object.keys(set).length === 0)
        return (await getItem(table, sessionEntity.key({ appId, handle }))) !== undefined;
      const { ok } = await updateItem(table, sessionEntity.key({ appId, handle }), updateExpression(set), LIVE, {
        subject: sessionEntity.subject,
      });
      return ok;
    },

    async remove(appId, handles) {
      const existed = new Set<string>();
      await forEachLimited([...new Set(handles)], 8, async (handle) => {
        const { existed: was } = await deleteItem(table, sessionEntity.key({ appId, handle }));
        if (was) existed.add(handle);
      });
      return handles.filter((h, i) => existed.has(h) && handles.indexOf(h) === i);
    },

    async handlesOfUser(appId, userId, tenantId) {
      const items = await queryAll(
        table,
        {
          index: 'GSI3',
          pk: userDataIndexPartitionOf(appId, userId),
          sk: { beginsWith: userSessionsPrefix(userId, tenantId) },
        },
        { attributes: ['handle', 'expiresAtMs'] },
      );
      const now = Date.now();
      return items.filter((i) => isLive(i.expiresAtMs as number, now)).map((i) => i.handle as string);
    },
  };
}
