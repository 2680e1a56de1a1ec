/**
 * The items a user record owns in the table, derived purely from the record (see keys/users.ts).
 * Creating, rewriting and deleting a user are all "diff the derived items of before and after",
 * so every write keeps the account-info, tenant, link, mapping and counter items consistent.
 */
import {
  emailDomain,
  externalIdOf,
  type LoginMethodRecord,
  providerValue,
  recipeMask,
  type UserRecord,
  userTenantIds,
} from '#functions/domain/users/model.js';
import type { WriteEntity } from '#functions/domain/users/ports.js';
import {
  accountRefSortKey,
  appUsersIndexPartition,
  appUsersIndexSortKey,
  COUNTER_APP_SK,
  counterTenantSortKey,
  EXTERNAL_ID_SK,
  emailPartition,
  externalIdPartition,
  LINK_SK,
  PASSWORD_PENDING_COUNTER,
  PRIMARY_SK,
  passwordPendingPartition,
  passwordPendingSortKey,
  phonePartition,
  type SearchIndexField,
  searchIndexPartition,
  searchIndexSortKey,
  tenantUsersIndexPartition,
  tenantUsersIndexSortKey,
  thirdPartyPartition,
  USER_COUNTER_SHARDS,
  USER_SK,
  uniqueSortKey,
  userCounterPartition,
  userPartition,
  userTenantSortKey,
} from '../keys/users.js';
import { defineEntity, type Key, keyString, shardOf } from '../kit/index.js';

const ENTITY = {
  user: 'USER',
  link: 'USER_LINK',
  tenant: 'USER_TENANT',
  accountInfo: 'ACCOUNT_INFO',
  primary: 'PRIMARY_ACCOUNT_INFO',
  externalId: 'USER_ID_MAPPING',
  counter: 'USER_COUNTER',
  passwordPending: 'PASSWORD_PENDING',
} as const;

export interface DerivedItem {
  readonly key: Key;
  readonly item: Record<string, unknown>;
  /** Reported when the item's creation condition fails. */
  readonly entity: WriteEntity;
}

/** The counter shard (and app-users index shard) of a user id. */
export const userShard = (userId: string) => shardOf(userId, USER_COUNTER_SHARDS);

type ListEntry = { appId: string; tenantId: string; user: UserRecord };
/** GSI1: a tenant's users by time joined. */
const tenantListIndex = {
  pk: (e: ListEntry) => tenantUsersIndexPartition(e.appId, e.tenantId),
  sk: (e: ListEntry) => tenantUsersIndexSortKey(e.user.timeJoined, e.user.userId),
};

/**
 * The USER item: GSI2 lists every user of the app (app deletion), GSI1 places the user in the
 * list of its first tenant.
 */
export const userEntity = defineEntity({
  type: ENTITY.user,
  key: (u: { appId: string; userId: string }) => ({ PK: userPartition(u.appId, u.userId), SK: USER_SK }),
  indexes: {
    GSI1: tenantListIndex,
    GSI2: {
      pk: (u: { appId: string; userId: string }) => appUsersIndexPartition(u.appId, userShard(u.userId)),
      sk: (u: { appId: string; userId: string }) => appUsersIndexSortKey(u.userId),
    },
  },
});

/** A user's membership of a further tenant: carries that tenant's list entry (GSI1). */
const tenantMembershipEntity = defineEntity({
  type: ENTITY.tenant,
  key: (m: { appId: string; userId: string; tenantId: string }) => ({
    PK: userPartition(m.appId, m.userId),
    SK: userTenantSortKey(m.tenantId),
  }),
  indexes: { GSI1: tenantListIndex },
});

/**
 * The USER item. It is also the user's entry in the list of its first tenant (`home`): most users
 * belong to one tenant, and a separate membership item for it would cost a transactional write
 * and an index write more per user created.
 */
function userItem(appId: string, user: UserRecord, home: string | undefined): DerivedItem {
  const {
    PK: _pk,
    SK: _sk,
    ...item
  } = userEntity.item(
    { appId, userId: user.userId },
    {},
    {
      GSI2: { appId, userId: user.userId },
      ...(home !== undefined ? { GSI1: { appId, tenantId: home, user } } : {}),
    },
  );
  return {
    key: userEntity.key({ appId, userId: user.userId }),
    entity: { kind: 'user', userId: user.userId },
    item: {
      ...item,
      ...(home !== undefined ? { recipeMask: recipeMask(user) } : {}),
      appId,
      userId: user.userId,
      isPrimaryUser: user.isPrimaryUser,
      timeJoined: user.timeJoined,
      loginMethods: user.loginMethods,
      externalIds: user.externalIds,
      version: user.version,
    },
  };
}

/** Reads a USER item back into a record; undefined for anything else. */
export function recordFromItem(item: Record<string, unknown> | undefined): UserRecord | undefined {
  if (!item || item.entityType !== ENTITY.user) return undefined;
  return {
    userId: item.userId as string,
    isPrimaryUser: item.isPrimaryUser as boolean,
    timeJoined: item.timeJoined as number,
    loginMethods: item.loginMethods as LoginMethodRecord[],
    externalIds: (item.externalIds as UserRecord['externalIds'] | undefined) ?? {},
    version: (item.version as number | undefined) ?? 0,
  };
}

type SearchEntry = { appId: string; tenantId: string; field: SearchIndexField; value: string };
/** A search index entry (GSI1 or GSI2) of an account-info item (docs/users.md "Searching users"). */
const searchIndex = {
  pk: (e: SearchEntry) => searchIndexPartition(e.appId, e.tenantId, e.field, e.value),
  sk: (e: SearchEntry) => searchIndexSortKey(e.value),
};

/**
 * An account-info item: the uniqueness (or reference) item of an email, phone number or
 * third-party login in a tenant. It carries the search entries of its value in that tenant: GSI1
 * the value (email, phone number, provider), GSI2 an email's domain — index entries of items a
 * user writes anyway, so a search needs no item of its own.
 */
const accountInfoEntity = defineEntity({
  type: ENTITY.accountInfo,
  key: (key: Key) => key,
  indexes: { GSI1: searchIndex, GSI2: searchIndex },
});

/** The search entries of one account-info item: the value's, and an email's domain's. */
function searchEntries(
  appId: string,
  tenantId: string,
  field: 'EMAIL' | 'PHONE' | 'TP',
  value: string,
): { GSI1?: SearchEntry; GSI2?: SearchEntry } {
  if (value === '') return {};
  const entries: { GSI1?: SearchEntry; GSI2?: SearchEntry } = { GSI1: { appId, tenantId, field, value } };
  if (field === 'EMAIL') {
    // An email without `@` is its own domain: its value entry finds it already.
    const domain = emailDomain(value);
    if (domain !== '' && domain !== value) entries.GSI2 = { appId, tenantId, field: 'DOMAIN', value: domain };
  }
  return entries;
}

function accountInfoItems(appId: string, user: UserRecord, lm: LoginMethodRecord, tenantId: string): DerivedItem[] {
  const owner = { appId, userId: user.userId, recipeUserId: lm.recipeUserId, recipeId: lm.recipeId, tenantId };
  const item = (
    key: Key,
    entity: WriteEntity,
    search: { field: 'EMAIL' | 'PHONE' | 'TP'; value: string },
  ): DerivedItem => {
    const {
      PK: _pk,
      SK: _sk,
      ...attributes
    } = accountInfoEntity.item(key, owner, searchEntries(appId, tenantId, search.field, search.value));
    return { key, entity, item: attributes };
  };
  const out: DerivedItem[] = [];
  if (lm.recipeId === 'emailpassword' && lm.email !== undefined) {
    out.push(
      item(
        { PK: emailPartition(appId, tenantId, lm.email), SK: uniqueSortKey('emailpassword') },
        { kind: 'uniqueEmail', recipeId: 'emailpassword', email: lm.email },
        { field: 'EMAIL', value: lm.email },
      ),
    );
  }
  if (lm.recipeId === 'thirdparty' && lm.thirdPartyId !== undefined && lm.thirdPartyUserId !== undefined) {
    out.push(
      item(
        {
          PK: thirdPartyPartition(appId, tenantId, lm.thirdPartyId, lm.thirdPartyUserId),
          SK: uniqueSortKey('thirdparty'),
        },
        { kind: 'uniqueThirdParty', thirdPartyId: lm.thirdPartyId, thirdPartyUserId: lm.thirdPartyUserId },
        { field: 'TP', value: providerValue(lm.thirdPartyId, lm.thirdPartyUserId) },
      ),
    );
    if (lm.email !== undefined) {
      out.push(
        item(
          { PK: emailPartition(appId, tenantId, lm.email), SK: accountRefSortKey(lm.recipeUserId) },
          { kind: 'user', userId: user.userId },
          { field: 'EMAIL', value: lm.email },
        ),
      );
    }
  }
  // A webauthn user's email is unique among the webauthn users of a tenant, as in the reference.
  if (lm.recipeId === 'webauthn' && lm.email !== undefined) {
    out.push(
      item(
        { PK: emailPartition(appId, tenantId, lm.email), SK: uniqueSortKey('webauthn') },
        { kind: 'uniqueEmail', recipeId: 'webauthn', email: lm.email },
        { field: 'EMAIL', value: lm.email },
      ),
    );
  }
  if (lm.recipeId === 'passwordless') {
    if (lm.email !== undefined) {
      out.push(
        item(
          { PK: emailPartition(appId, tenantId, lm.email), SK: uniqueSortKey('passwordless') },
          { kind: 'uniqueEmail', recipeId: 'passwordless', email: lm.email },
          { field: 'EMAIL', value: lm.email },
        ),
      );
    }
    if (lm.phoneNumber !== undefined) {
      out.push(
        item(
          { PK: phonePartition(appId, tenantId, lm.phoneNumber), SK: uniqueSortKey('passwordless') },
          { kind: 'uniquePhone', phoneNumber: lm.phoneNumber },
          { field: 'PHONE', value: lm.phoneNumber },
        ),
      );
    }
  }
  return out;
}

/** Keys of the account infos of one login method in one tenant that a primary user reserves. */
export function primaryKeys(appId: string, tenantId: string, info: LoginMethodAccountInfo): Key[] {
  const keys: Key[] = [];
  if (info.email !== undefined) keys.push({ PK: emailPartition(appId, tenantId, info.email), SK: PRIMARY_SK });
  if (info.phoneNumber !== undefined) {
    keys.push({ PK: phonePartition(appId, tenantId, info.phoneNumber), SK: PRIMARY_SK });
  }
  if (info.thirdPartyId !== undefined && info.thirdPartyUserId !== undefined) {
    keys.push({ PK: thirdPartyPartition(appId, tenantId, info.thirdPartyId, info.thirdPartyUserId), SK: PRIMARY_SK });
  }
  return keys;
}

type LoginMethodAccountInfo = Pick<LoginMethodRecord, 'email' | 'phoneNumber' | 'thirdPartyId' | 'thirdPartyUserId'>;

/**
 * Every item a user record owns except counters, in a stable order. A key that two login methods
 * would both need (e.g. the same email twice in one tenant) is returned once per claimant: the
 * caller treats the repeat as a conflict.
 */
export function deriveItems(appId: string, user: UserRecord): DerivedItem[] {
  const tenants = userTenantIds(user);
  const [home, ...others] = tenants;
  const items: DerivedItem[] = [userItem(appId, user, home)];
  // Every other tenant: a membership item carrying the list entry.
  for (const tenantId of others) {
    const {
      PK: _pk,
      SK: _sk,
      ...entry
    } = tenantMembershipEntity.item(
      { appId, userId: user.userId, tenantId },
      { recipeMask: recipeMask(user) },
      { GSI1: { appId, tenantId, user } },
    );
    items.push({
      key: tenantMembershipEntity.key({ appId, userId: user.userId, tenantId }),
      entity: { kind: 'user', userId: user.userId },
      item: {
        ...entry,
        appId,
        tenantId,
        userId: user.userId,
        timeJoined: user.timeJoined,
      },
    });
  }
  for (const lm of user.loginMethods) {
    if (lm.recipeUserId !== user.userId) {
      items.push({
        key: { PK: userPartition(appId, lm.recipeUserId), SK: LINK_SK },
        entity: { kind: 'user', userId: user.userId },
        item: { entityType: ENTITY.link, appId, recipeUserId: lm.recipeUserId, userId: user.userId },
      });
    }
    for (const tenantId of lm.tenantIds) items.push(...accountInfoItems(appId, user, lm, tenantId));
    if (lm.passwordMigration === 'hook') items.push(passwordPendingItem(appId, user, lm));
  }
  if (user.isPrimaryUser) {
    const seen = new Set<string>();
    for (const tenantId of tenants) {
      for (const lm of user.loginMethods) {
        for (const key of primaryKeys(appId, tenantId, lm)) {
          if (seen.has(keyString(key))) continue; // the same user reserving its own info twice
          seen.add(keyString(key));
          items.push({
            key,
            entity: { kind: 'primaryAccountInfo' },
            item: { entityType: ENTITY.primary, appId, tenantId, userId: user.userId },
          });
        }
      }
    }
  }
  for (const [superTokensUserId, mapping] of Object.entries(user.externalIds)) {
    items.push({
      key: { PK: externalIdPartition(appId, mapping.externalUserId), SK: EXTERNAL_ID_SK },
      entity: { kind: 'externalId', externalUserId: mapping.externalUserId },
      item: {
        entityType: ENTITY.externalId,
        appId,
        superTokensUserId,
        externalUserId: mapping.externalUserId,
        externalUserIdInfo: mapping.externalUserIdInfo,
        userId: user.userId,
      },
    });
  }
  return items;
}

/**
 * A login method pending the password-migration hook: its entry in the cutover list. It comes and
 * goes with the method's `passwordMigration` mark, in the same write (so the list and the
 * `pwPending` counter always agree with the users).
 */
function passwordPendingItem(appId: string, user: UserRecord, lm: LoginMethodRecord): DerivedItem {
  return {
    key: {
      PK: passwordPendingPartition(appId, userShard(lm.recipeUserId)),
      SK: passwordPendingSortKey(lm.timeJoined, lm.recipeUserId),
    },
    entity: { kind: 'user', userId: user.userId },
    item: {
      entityType: ENTITY.passwordPending,
      appId,
      userId: externalIdOf(user, user.userId),
      recipeUserId: lm.recipeUserId,
      email: lm.email,
      timeJoined: lm.timeJoined,
    },
  };
}

/** Login methods of a user pending the password-migration hook. */
const pendingMethods = (user: UserRecord) => user.loginMethods.filter((lm) => lm.passwordMigration === 'hook').length;

/**
 * Counter deltas of users' changes: −1 for what each was, +1 for what it becomes. Each user's share
 * goes to its own shard unless `shard` is given (a group written together uses one shard).
 */
export function counterDeltas(
  appId: string,
  changes: readonly { before?: UserRecord; after?: UserRecord }[],
  shard?: number,
): Map<string, { key: Key; deltas: Map<string, number> }> {
  const out = new Map<string, { key: Key; deltas: Map<string, number> }>();
  const add = (shard: number, sk: string, attribute: string, delta: number) => {
    const key = { PK: userCounterPartition(appId, shard), SK: sk };
    const id = keyString(key);
    const entry = out.get(id) ?? { key, deltas: new Map<string, number>() };
    entry.deltas.set(attribute, (entry.deltas.get(attribute) ?? 0) + delta);
    out.set(id, entry);
  };
  const apply = (user: UserRecord | undefined, delta: number) => {
    if (!user || user.loginMethods.length === 0) return;
    const target = shard ?? userShard(user.userId);
    const attribute = counterAttribute(recipeMask(user));
    add(target, COUNTER_APP_SK, attribute, delta);
    for (const tenantId of userTenantIds(user)) add(target, counterTenantSortKey(tenantId), attribute, delta);
    const pending = pendingMethods(user);
    if (pending > 0) add(target, COUNTER_APP_SK, PASSWORD_PENDING_COUNTER, delta * pending);
  };
  for (const change of changes) {
    apply(change.before, -1);
    apply(change.after, +1);
  }
  for (const [id, entry] of out) {
    for (const [attribute, delta] of entry.deltas) if (delta === 0) entry.deltas.delete(attribute);
    if (entry.deltas.size === 0) out.delete(id);
  }
  return out;
}

/** The counter attribute of one recipe-combination mask. */
export const counterAttribute = (mask: number) => `m${mask}`;

/** Counter keys of a scope (a tenant, or the whole app): one per shard. */
export function counterKeys(appId: string, tenantId: string | undefined): Key[] {
  const sk = tenantId === undefined ? COUNTER_APP_SK : counterTenantSortKey(tenantId);
  return Array.from({ length: USER_COUNTER_SHARDS }, (_, shard) => ({
    PK: userCounterPartition(appId, shard),
    SK: sk,
  }));
}
