/**
 * A user write: ONE TransactWriteItems call built by diffing the derived items of the user records
 * before and after (items.ts); uniqueness lives in conditional writes inside it, counters are
 * sharded ADD updates inside it, and the companion writes of other stores (the import worker's staged-row
 * deletes) are composed into it here. A cancelled transaction is mapped back, by action index, to
 * the entities whose conditions failed.
 *
 * The write is built once, plan by plan (`add`), and its action count is read from what was built.
 * Metadata merges need a read, so they are composed at commit time (one action per plan, counted).
 */
import type { AccountWrites, WebauthnWrites } from '#functions/domain/users/companions.js';
import type {
  CompanionWrites,
  UserWrite,
  UserWritePlan,
  WriteEntity,
  WriteResult,
} from '#functions/domain/users/ports.js';
import { accountWriteActionCount, accountWriteActions } from '../account-tokens.js';
import type { Envelope } from '../crypto/envelope.js';
import { LINK_SK, PASSWORD_MIGRATED_COUNTER, PRIMARY_SK, USER_SK, userPartition } from '../keys/users.js';
import { type Key, keyString, type Table, type TransactItem, transact } from '../kit/index.js';
import { metadataMergeWrite } from '../metadata-store.js';
import { roleExistsCheck, userRolePut } from '../role-store.js';
import { importedRowDeletes } from '../staging/status.js';
import { sealTotpSecret, totpDevicePut } from '../totp-store.js';
import { webauthnWriteActionCount, webauthnWriteActions } from '../webauthn-store.js';
import { guardCheck, guardPut } from './guard.js';
import { counterDeltas, counterKeys, type DerivedItem, deriveItems, primaryKeys, userShard } from './items.js';

export interface Action {
  /** The action as previewed (a TOTP device's Put without its secret). */
  readonly item: TransactItem;
  /** The action as committed, when it needs work first (sealing a TOTP secret); else `item`. */
  readonly prepare?: () => Promise<TransactItem>;
  readonly entity: WriteEntity;
  /** The plan it belongs to (undefined: shared counters). */
  readonly plan: number | undefined;
}

interface State {
  actions: Action[];
  /** Entities whose key another part of the same write already claims: conflicts found before writing. */
  duplicates: { entity: WriteEntity; plan: number }[];
  claimed: Set<string>;
  checkedRoles: Set<string>;
  metadataUsers: Set<string>;
  plans: UserWritePlan[];
  stagedRows: { id: string; plan: number }[];
  /** Companion account writes (token consumption, verified emails), by plan. */
  account: { writes: AccountWrites; plan: number }[];
  /** A plan's primary checks were folded into one check of the app's primary-users guard (guard.ts). */
  guardChecked: boolean;
  /** A plan creates a primary user's reservation: the guard is set in the same write. */
  createsPrimary: boolean;
  /** Companion passkey writes (a passkey registered or removed), by plan. */
  webauthn: { writes: WebauthnWrites; plan: number }[];
}

const sameContent = (a: DerivedItem, b: DerivedItem) => JSON.stringify(a.item) === JSON.stringify(b.item);

const copy = (s: State): State => ({
  actions: [...s.actions],
  duplicates: [...s.duplicates],
  claimed: new Set(s.claimed),
  checkedRoles: new Set(s.checkedRoles),
  metadataUsers: new Set(s.metadataUsers),
  plans: [...s.plans],
  stagedRows: [...s.stagedRows],
  account: [...s.account],
  guardChecked: s.guardChecked,
  createsPrimary: s.createsPrimary,
  webauthn: [...s.webauthn],
});

export class DynamoUserWrite implements UserWrite {
  private state: State = {
    actions: [],
    duplicates: [],
    claimed: new Set(),
    checkedRoles: new Set(),
    metadataUsers: new Set(),
    plans: [],
    stagedRows: [],
    account: [],
    guardChecked: false,
    createsPrimary: false,
    webauthn: [],
  };

  constructor(
    readonly table: Table,
    readonly appId: string,
    /** Seals the TOTP secrets of the write; a write with devices needs it. */
    private readonly envelope?: () => Envelope,
    /**
     * How the plans' primary checks are written: one ConditionCheck per account info (`each`), or
     * one check of the app's primary-users guard for the whole write (`guard`: only when
     * guard.ts `primaryCheckMode` said so, and for plans that create no primary user).
     */
    private readonly primaryChecks: 'each' | 'guard' = 'each',
  ) {}

  get actionCount(): number {
    const s = this.state;
    return (
      s.actions.length +
      this.counterUpdates().length +
      (s.stagedRows.length > 0 ? s.stagedRows.length + 1 : 0) +
      s.plans.filter((p) => p.metadata).length +
      s.account.reduce((n, a) => n + accountWriteActionCount(a.writes), 0) +
      (s.guardChecked ? 1 : 0) +
      (s.createsPrimary ? 1 : 0) +
      s.webauthn.reduce((n, w) => n + webauthnWriteActionCount(w.writes), 0)
    );
  }

  add(plan: UserWritePlan, companions?: CompanionWrites, limit?: number): boolean {
    const before = limit === undefined ? undefined : copy(this.state);
    this.append(plan, companions);
    if (before && this.actionCount > (limit as number)) {
      this.state = before;
      return false;
    }
    return true;
  }

  private append(plan: UserWritePlan, companions: CompanionWrites | undefined): void {
    const { table, appId } = this;
    const s = this.state;
    const planIndex = s.plans.length;
    s.plans.push(plan);
    const push = (entity: WriteEntity, item: TransactItem) => s.actions.push({ entity, item, plan: planIndex });
    const claim = (key: Key, entity: WriteEntity): boolean => {
      const id = keyString(key);
      if (s.claimed.has(id)) {
        s.duplicates.push({ entity, plan: planIndex });
        return false;
      }
      s.claimed.add(id);
      return true;
    };

    // The items of all the plan's users before and after, diffed together: an item may pass from
    // one user to another in one plan (linking moves a recipe user's account-info items and
    // mapping under its primary user, unlinking moves them back), which is a rewrite of that item,
    // not a delete and a create of the same key. Each item remembers the version of the user record
    // it came from: a USER item is rewritten or deleted only if that user is still at that version.
    const before = new Map<string, { readonly derived: DerivedItem; readonly version: number }>();
    const after: DerivedItem[] = [];
    for (const change of plan.changes) {
      const { before: old, after: next } = change;
      if (old) {
        for (const derived of deriveItems(appId, old)) {
          const id = keyString(derived.key);
          if (!before.has(id)) before.set(id, { derived, version: old.version });
        }
      }
      if (next) after.push(...deriveItems(appId, next));
    }
    const afterKeys = new Set(after.map((d) => keyString(d.key)));
    for (const derived of after) {
      const found = before.get(keyString(derived.key));
      const old = found?.derived;
      const isUser = derived.key.SK === USER_SK;
      if (old && !isUser && sameContent(old, derived)) continue;
      if (!claim(derived.key, derived.entity)) continue;
      const Item = { ...derived.key, ...derived.item };
      if (!found) {
        if (derived.key.SK === PRIMARY_SK) s.createsPrimary = true;
        push(derived.entity, {
          Put: { TableName: table.name, Item, ConditionExpression: 'attribute_not_exists(PK)' },
        });
      } else if (isUser) {
        push(derived.entity, {
          Put: {
            TableName: table.name,
            Item,
            ConditionExpression: 'version = :v',
            ExpressionAttributeValues: { ':v': found.version },
          },
        });
      } else {
        push(derived.entity, { Put: { TableName: table.name, Item } });
      }
    }
    for (const [id, { derived: old, version }] of before) {
      if (afterKeys.has(id)) continue;
      if (!claim(old.key, old.entity)) continue;
      const isUser = old.key.SK === USER_SK;
      push(old.entity, {
        Delete: {
          TableName: table.name,
          Key: old.key,
          ...(isUser ? { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': version } } : {}),
        },
      });
    }

    if (this.primaryChecks === 'guard' && (plan.primaryFreeChecks ?? []).length > 0) s.guardChecked = true;
    for (const check of this.primaryChecks === 'guard' ? [] : (plan.primaryFreeChecks ?? [])) {
      for (const key of primaryKeys(appId, check.tenantId, check)) {
        if (s.claimed.has(keyString(key))) continue;
        s.claimed.add(keyString(key));
        push(
          { kind: 'primaryAccountInfo' },
          { ConditionCheck: { TableName: table.name, Key: key, ConditionExpression: 'attribute_not_exists(PK)' } },
        );
      }
    }
    for (const externalUserId of plan.externalIdsNotUserIds ?? []) {
      for (const SK of [USER_SK, LINK_SK]) {
        const key = { PK: userPartition(appId, externalUserId), SK };
        if (!claim(key, { kind: 'externalIdIsUserId', externalUserId })) continue;
        push(
          { kind: 'externalIdIsUserId', externalUserId },
          { ConditionCheck: { TableName: table.name, Key: key, ConditionExpression: 'attribute_not_exists(PK)' } },
        );
      }
    }
    if (plan.roles) {
      for (const role of new Set(plan.roles.assignments.map((a) => a.role))) {
        // The same role checked for two users of a write is one check.
        if (s.checkedRoles.has(role)) continue;
        s.checkedRoles.add(role);
        push({ kind: 'role', role }, roleExistsCheck(table, appId, role));
      }
      for (const { role, tenantId } of plan.roles.assignments) {
        push({ kind: 'internal' }, userRolePut(table, appId, plan.roles.userId, tenantId, role));
      }
    }
    for (const device of plan.totpDevices?.devices ?? []) {
      const userId = (plan.totpDevices as NonNullable<typeof plan.totpDevices>).userId;
      const { envelope } = this;
      s.actions.push({
        entity: { kind: 'totpDevice', deviceName: device.deviceName },
        item: totpDevicePut(table, appId, userId, device),
        plan: planIndex,
        // The secret is sealed at commit time only: never in clear in an item, never for a preview.
        prepare: async () => {
          if (!envelope) throw new Error('a write of TOTP devices needs the credentials envelope');
          return totpDevicePut(table, appId, userId, device, await sealTotpSecret(envelope, appId, userId, device));
        },
      });
    }
    if (plan.metadata) {
      if (s.metadataUsers.has(plan.metadata.userId))
        s.duplicates.push({ entity: { kind: 'metadata' }, plan: planIndex });
      s.metadataUsers.add(plan.metadata.userId);
    }
    for (const id of companions?.importedStagedRows ?? []) s.stagedRows.push({ id, plan: planIndex });
    if (companions?.account) s.account.push({ writes: companions.account, plan: planIndex });
    if (companions?.webauthn) s.webauthn.push({ writes: companions.webauthn, plan: planIndex });
  }

  /**
   * One update per counter item. Several plans written together put all their deltas on the first
   * user's shard — counts are sums over the shards, so any shard may carry any user's share, and
   * one counter action instead of one per user is what makes grouping cheaper.
   */
  private counterUpdates(): TransactItem[] {
    const { plans } = this.state;
    const changes = plans.flatMap((p) => p.changes);
    const firstUser = changes.find((c) => c.after ?? c.before);
    const shard =
      plans.length > 1 && firstUser ? userShard((firstUser.after ?? firstUser.before)?.userId ?? '') : undefined;
    const counters = counterDeltas(this.appId, changes, shard);
    const migrated = plans.reduce((n, p) => n + (p.passwordsMigratedByHook ?? 0), 0);
    if (migrated > 0) {
      const key = counterKeys(this.appId, undefined)[shard ?? userShard(firstUser?.after?.userId ?? '')] as Key;
      const entry = counters.get(keyString(key)) ?? { key, deltas: new Map<string, number>() };
      entry.deltas.set(PASSWORD_MIGRATED_COUNTER, migrated);
      counters.set(keyString(key), entry);
    }
    return [...counters.values()].map(({ key, deltas }) => {
      const names: Record<string, string> = {};
      const values: Record<string, number> = {};
      const parts: string[] = [];
      [...deltas].forEach(([attribute, delta], i) => {
        names[`#c${i}`] = attribute;
        values[`:c${i}`] = delta;
        parts.push(`#c${i} :c${i}`);
      });
      return {
        Update: {
          TableName: this.table.name,
          Key: key,
          UpdateExpression: `SET entityType = :e ADD ${parts.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ':e': 'USER_COUNTER' },
        },
      };
    });
  }

  /**
   * What a preview by reads needs (preview.ts): the actions built so far, the conflicts found
   * before writing, and whether companion writes were asked for (a preview cannot check those).
   */
  get built(): {
    readonly actions: readonly Action[];
    readonly duplicates: readonly { readonly entity: WriteEntity; readonly plan: number }[];
    readonly hasCompanions: boolean;
  } {
    const s = this.state;
    return {
      actions: s.actions,
      duplicates: s.duplicates,
      hasCompanions: s.stagedRows.length > 0 || s.account.length > 0 || s.webauthn.length > 0,
    };
  }

  /** Commits the write: metadata merges are read now (a retry after their guard failed reads again). */
  async commit(): Promise<WriteResult> {
    const s = this.state;
    if (s.duplicates.length > 0) {
      return { ok: false, failed: s.duplicates.map((d) => d.entity), plans: s.duplicates.map((d) => d.plan) };
    }
    const actions: Action[] = [...s.actions];
    for (const item of this.counterUpdates()) actions.push({ entity: { kind: 'internal' }, item, plan: undefined });
    if (s.guardChecked && s.createsPrimary) {
      throw new Error('a write checking the primary-users guard cannot also create a primary user');
    }
    if (s.guardChecked) {
      actions.push({ entity: { kind: 'primaryGuard' }, item: guardCheck(this.table, this.appId), plan: undefined });
    }
    if (s.createsPrimary) {
      actions.push({ entity: { kind: 'internal' }, item: guardPut(this.table, this.appId), plan: undefined });
    }
    const staged = importedRowDeletes(
      this.table,
      this.appId,
      s.stagedRows.map((r) => r.id),
    );
    staged.forEach((item, i) => {
      const row = s.stagedRows[i];
      actions.push(
        row
          ? { entity: { kind: 'stagedRow', id: row.id }, item, plan: row.plan }
          : { entity: { kind: 'internal' }, item, plan: undefined },
      );
    });
    for (const { writes, plan } of s.account) {
      for (const { item, entity } of accountWriteActions(this.table, this.appId, writes)) {
        actions.push({ entity, item, plan });
      }
    }
    for (const { writes, plan } of s.webauthn) {
      for (const { item, entity } of webauthnWriteActions(this.table, this.appId, writes)) {
        actions.push({ entity, item, plan });
      }
    }
    // One read per user with metadata, all at once: a group of users is one round trip, not one each.
    const merges = await Promise.all(
      [...s.plans.entries()].flatMap(([planIndex, plan]) =>
        plan.metadata
          ? [
              metadataMergeWrite(this.table, this.appId, plan.metadata.userId, plan.metadata.update).then(
                (item): Action => ({ entity: { kind: 'metadata' }, item, plan: planIndex }),
              ),
            ]
          : [],
      ),
    );
    actions.push(...merges);
    if (actions.length === 0) return { ok: true };
    const items = await Promise.all(actions.map((a) => (a.prepare ? a.prepare() : a.item)));
    const result = await transact(this.table, items);
    if (result.ok) return { ok: true };
    return {
      ok: false,
      failed: result.failedIndexes.map((i): WriteEntity => actions[i]?.entity ?? { kind: 'internal' }),
      plans: result.failedIndexes.map((i) => actions[i]?.plan),
    };
  }
}
