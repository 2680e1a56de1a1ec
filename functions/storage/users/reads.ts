/** The users store's reads, each a row of the access-pattern table in docs/architecture.md "Data model". */
import type { SearchField, UserRecord } from '#functions/domain/users/model.js';
import type {
  AccountInfoQuery,
  ListUsersQuery,
  TenantAccountInfo,
  UserIdMapping,
  UserPosition,
} from '#functions/domain/users/ports.js';
import { checkTimeLeft } from '#functions/shared/call-budget.js';
import {
  EXTERNAL_ID_SK,
  emailPartition,
  externalIdPartition,
  LINK_SK,
  PRIMARY_SK,
  phonePartition,
  type SearchIndexField,
  searchIndexPartition,
  searchIndexSortKey,
  tenantUsersIndexPartition,
  tenantUsersIndexSortKey,
  thirdPartyPartition,
  USER_SK,
  uniqueSortKey,
  userPartition,
} from '../keys/users.js';
import { WEBAUTHN_CREDENTIAL_SK, webauthnCredentialPartition } from '../keys/webauthn.js';
import { batchGetAll, getItem, type Item, type Key, keyString, queryAll, queryPage, type Table } from '../kit/index.js';
import { counterAttribute, counterKeys, recordFromItem } from './items.js';

/** USER items of these user ids, in the given order (missing ones skipped). */
export async function getUsers(
  table: Table,
  appId: string,
  userIds: readonly string[],
  options: { consistent?: boolean } = {},
): Promise<UserRecord[]> {
  const items = await batchGetAll(
    table,
    userIds.map((id) => ({ PK: userPartition(appId, id), SK: USER_SK })),
    options,
  );
  const byId = new Map<string, UserRecord>();
  for (const item of items) {
    const record = recordFromItem(item);
    if (record) byId.set(record.userId, record);
  }
  return [...new Set(userIds)].flatMap((id) => {
    const record = byId.get(id);
    return record ? [record] : [];
  });
}

/** Access patterns "user by id" (USER) and "primary of a linked recipe user" (LINK), one BatchGet. */
export async function getUserBySuperTokensId(
  table: Table,
  appId: string,
  superTokensId: string,
): Promise<UserRecord | undefined> {
  const items = await batchGetAll(table, [
    { PK: userPartition(appId, superTokensId), SK: USER_SK },
    { PK: userPartition(appId, superTokensId), SK: LINK_SK },
  ]);
  const user = items.find((i) => i.SK === USER_SK);
  if (user) return recordFromItem(user);
  const link = items.find((i) => i.SK === LINK_SK);
  if (!link) return undefined;
  return recordFromItem(await getItem(table, { PK: userPartition(appId, link.userId as string), SK: USER_SK }));
}

/** Access pattern "mapping by external id": GetItem `APP#<a>#EXT#<ext>` / `MAP`. */
export async function getMappingByExternalId(
  table: Table,
  appId: string,
  externalUserId: string,
): Promise<UserIdMapping | undefined> {
  const item = await getItem(table, { PK: externalIdPartition(appId, externalUserId), SK: EXTERNAL_ID_SK });
  if (!item) return undefined;
  return {
    superTokensUserId: item.superTokensUserId as string,
    externalUserId: item.externalUserId as string,
    ...(typeof item.externalUserIdInfo === 'string' ? { externalUserIdInfo: item.externalUserIdInfo } : {}),
  };
}

/** Access pattern "emailpassword user by email in a tenant": GetItem email partition / `UNIQUE#emailpassword`. */
export async function getEmailPasswordUser(table: Table, appId: string, tenantId: string, email: string) {
  const item = await getItem(table, { PK: emailPartition(appId, tenantId, email), SK: uniqueSortKey('emailpassword') });
  if (!item) return undefined;
  const recipeUserId = item.recipeUserId as string;
  const user = await getUserBySuperTokensId(table, appId, recipeUserId);
  if (!user) return undefined;
  return { user, recipeUserId };
}

/** Access pattern "account-info owners": Query one account-info partition (UNIQUE#… and REF#… items). */
async function ownersOf(table: Table, pk: string): Promise<string[]> {
  const items = await queryAll(table, { pk }, { consistent: true });
  return items.filter((item) => item.SK !== PRIMARY_SK).map((item) => item.userId as string);
}

export async function usersByAccountInfo(
  table: Table,
  appId: string,
  tenantId: string,
  query: AccountInfoQuery,
): Promise<UserRecord[][]> {
  const partitions: string[] = [];
  if (query.email !== undefined) partitions.push(emailPartition(appId, tenantId, query.email));
  if (query.phoneNumber !== undefined) partitions.push(phonePartition(appId, tenantId, query.phoneNumber));
  if (query.thirdParty) {
    partitions.push(thirdPartyPartition(appId, tenantId, query.thirdParty.id, query.thirdParty.userId));
  }
  const lists = partitions.map(async (pk) => getUsers(table, appId, await ownersOf(table, pk)));
  if (query.webauthnCredentialId !== undefined) lists.push(passkeyOwner(table, appId, query.webauthnCredentialId));
  return Promise.all(lists);
}

/** Access pattern "user of a passkey": GetItem of the passkey, then its login method's user. */
async function passkeyOwner(table: Table, appId: string, credentialId: string): Promise<UserRecord[]> {
  const passkey = await getItem(table, {
    PK: webauthnCredentialPartition(appId, credentialId),
    SK: WEBAUTHN_CREDENTIAL_SK,
  });
  if (!passkey) return [];
  const user = await getUserBySuperTokensId(table, appId, passkey.recipeUserId as string);
  return user ? [user] : [];
}

/** The `PRIMARY` reservation key of an account info in its tenant. */
function primaryKeyOf(appId: string, info: TenantAccountInfo) {
  const pk =
    'email' in info
      ? emailPartition(appId, info.tenantId, info.email)
      : 'phoneNumber' in info
        ? phonePartition(appId, info.tenantId, info.phoneNumber)
        : thirdPartyPartition(appId, info.tenantId, info.thirdParty.id, info.thirdParty.userId);
  return { PK: pk, SK: PRIMARY_SK };
}

/**
 * Access pattern "primary user holding an account info": BatchGet of the `PRIMARY` items of the
 * account-info partitions (consistent), each naming the primary user that reserves it.
 */
export async function primaryUsersHolding(
  table: Table,
  appId: string,
  infos: readonly TenantAccountInfo[],
): Promise<(string | undefined)[]> {
  const keys = infos.map((info) => primaryKeyOf(appId, info));
  const items = await batchGetAll(table, keys, { attributes: ['PK', 'SK', 'userId'] });
  const holders = new Map(items.map((item) => [keyString(item as Key), item.userId as string]));
  return keys.map((key) => holders.get(keyString(key)));
}

const POSITION_SHAPE = /^(\d{15})#(.+)$/;

/**
 * Access pattern "users of a tenant by time joined": Query GSI1 `APP#<a>#T#<t>#USERS`, SK after
 * the previous page's last entry, filtered by recipe mask; then BatchGet of the USER items.
 */
export async function listUsers(
  table: Table,
  appId: string,
  tenantId: string,
  query: ListUsersQuery,
): Promise<{ users: UserRecord[]; next?: UserPosition }> {
  const ascending = query.order === 'ASC';
  if (query.masks?.length === 0) return { users: [] };
  const after = query.after ? tenantUsersIndexSortKey(query.after.timeJoined, query.after.userId) : undefined;
  const masks = query.masks;
  const entries: { userId: string; sk: string }[] = [];
  let startKey: Item | undefined;
  do {
    const page = await queryPage(
      table,
      {
        index: 'GSI1',
        pk: tenantUsersIndexPartition(appId, tenantId),
        ...(after === undefined ? {} : { sk: ascending ? { after } : { before: after } }),
      },
      {
        ...(masks
          ? {
              filter: {
                expression: `recipeMask IN (${masks.map((_, i) => `:m${i}`).join(', ')})`,
                values: Object.fromEntries(masks.map((mask, i) => [`:m${i}`, mask])),
              },
            }
          : {}),
        attributes: ['userId', 'GSI1SK'],
        forward: ascending,
        pageSize: Math.min(1000, query.limit + 1),
        ...(startKey ? { startKey } : {}),
      },
    );
    for (const item of page.items) entries.push({ userId: item.userId as string, sk: item.GSI1SK as string });
    startKey = page.next;
    // A filter that matches few users reads many pages: each further page only in the request's time.
    if (startKey && entries.length <= query.limit) checkTimeLeft('reading a further page of users');
  } while (startKey && entries.length <= query.limit);
  const pageEntries = entries.slice(0, query.limit);
  const users = await getUsers(
    table,
    appId,
    pageEntries.map((e) => e.userId),
  );
  const last = pageEntries[pageEntries.length - 1];
  const match = last && entries.length > query.limit ? POSITION_SHAPE.exec(last.sk) : null;
  return match ? { users, next: { timeJoined: Number(match[1]), userId: match[2] as string } } : { users };
}

/** Access pattern "users count": BatchGet of the 16 counter shards of a tenant (or of the app). */
export async function countUsers(
  table: Table,
  appId: string,
  tenantId: string | undefined,
  masks: readonly number[],
): Promise<number> {
  let total = 0;
  for (const item of await batchGetAll(table, counterKeys(appId, tenantId))) {
    for (const mask of masks) total += (item[counterAttribute(mask)] as number | undefined) ?? 0;
  }
  return total;
}

/** The search indexes a field's terms are looked up in (an email's: its value's and its domain's). */
const SEARCH_INDEXES: Record<SearchField, readonly { index: 'GSI1' | 'GSI2'; field: SearchIndexField }[]> = {
  email: [
    { index: 'GSI1', field: 'EMAIL' },
    { index: 'GSI2', field: 'DOMAIN' },
  ],
  phone: [{ index: 'GSI1', field: 'PHONE' }],
  provider: [{ index: 'GSI1', field: 'TP' }],
};

/** Index entries one search reads at most, per user it may answer. */
const SEARCH_ENTRIES_PER_USER = 2;

/**
 * Access pattern "users by a search term": per term, Query the search index partition of its
 * first character (GSI1 for the value, GSI2 for an email's domain), SK begins_with the term, for
 * the owners' user ids, until `limit` users are found or 2 × `limit` entries were read (entries of
 * users found already, e.g. by an email's value and its domain, count too); then BatchGet of those
 * users (eventually consistent, as the index is). However many users the tenant has, a search
 * reads at most 2 × `limit` index entries and `limit` users. The Queries run one after another
 * (a search has a term or two as a rule), so the bound holds exactly.
 */
export async function searchUsers(
  table: Table,
  appId: string,
  tenantId: string,
  query: { field: SearchField; terms: readonly string[]; limit: number },
): Promise<UserRecord[]> {
  const ids = new Set<string>();
  let budget = SEARCH_ENTRIES_PER_USER * query.limit;
  const lookups = query.terms
    .filter((term) => term !== '')
    .flatMap((term) => SEARCH_INDEXES[query.field].map((target) => ({ ...target, term })));
  for (const { index, field, term } of lookups) {
    let startKey: Item | undefined;
    do {
      if (ids.size >= query.limit || budget <= 0) break;
      const page = await queryPage(
        table,
        {
          index,
          pk: searchIndexPartition(appId, tenantId, field, term),
          sk: { beginsWith: searchIndexSortKey(term) },
        },
        { attributes: ['userId'], pageSize: Math.min(1000, budget), ...(startKey ? { startKey } : {}) },
      );
      budget -= page.items.length;
      for (const item of page.items) if (ids.size < query.limit) ids.add(item.userId as string);
      startKey = page.next;
    } while (startKey);
  }
  return getUsers(table, appId, [...ids], { consistent: false });
}
