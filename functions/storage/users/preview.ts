/**
 * A preview of user writes by reads alone (the bulk-import dry run): the conditions each write's
 * transaction would check are evaluated against the items that exist, read by BatchGet with
 * bounded parallelism, and against the items the writes before it would have created — so the
 * second of two users needing the same key fails as it would once the first was imported. The
 * conditions are the write's own (write.ts builds them), so a preview and a commit cannot differ
 * in what they check. Only the items keyed by the writes' own new user ids are not read (see
 * {@link checkOf}).
 */
import type { UserWrite, WriteEntity, WriteResult } from '#functions/domain/users/ports.js';
import {
  batchGetAll,
  chunk,
  forEachLimited,
  type Key,
  keyString,
  type Table,
  type TransactItem,
} from '../kit/index.js';
import type { DynamoUserWrite } from './write.js';

/** BatchGets in flight for one preview. */
const PREVIEW_PARALLELISM = 8;
const KEYS_PER_BATCH = 100;

interface Check {
  readonly id: string;
  readonly key: Key;
  /** What the action's condition needs of the item; undefined: no condition. */
  readonly needs: 'absent' | 'present' | undefined;
  /** The action creates (or overwrites) the item. */
  readonly creates: boolean;
  readonly entity: WriteEntity;
  readonly plan: number | undefined;
}

type Described = { readonly result: WriteResult } | { readonly checks: readonly Check[] };

const NOT_EXISTS = 'attribute_not_exists(PK)';
const EXISTS = 'attribute_exists(PK)';

function checkOf(item: TransactItem, entity: WriteEntity, plan: number | undefined): Check | undefined {
  // The items keyed by the user ids the write creates (USER, LINK, memberships, references) are
  // new by construction (fresh ids): not read.
  if (entity.kind === 'user') return undefined;
  const check = (key: Key, condition: string | undefined, creates: boolean): Check => {
    const needs =
      condition === undefined
        ? undefined
        : condition === NOT_EXISTS
          ? 'absent'
          : condition === EXISTS
            ? 'present'
            : 'other';
    if (needs === 'other') throw new Error(`a write with the condition ${condition} cannot be previewed`);
    return { id: keyString(key), key, needs, creates, entity, plan };
  };
  if (item.Put) {
    const { PK, SK } = item.Put.Item as Key;
    return check({ PK, SK }, item.Put.ConditionExpression, true);
  }
  if (item.ConditionCheck) return check(item.ConditionCheck.Key as Key, item.ConditionCheck.ConditionExpression, false);
  // Counter updates carry no condition and cannot fail.
  if (item.Update && item.Update.ConditionExpression === undefined) return undefined;
  throw new Error('only writes that create items can be previewed');
}

function describe(write: DynamoUserWrite): Described {
  const { actions, duplicates, hasCompanions } = write.built;
  if (hasCompanions) throw new Error('a write with companion writes cannot be previewed');
  if (duplicates.length > 0) {
    return {
      result: { ok: false, failed: duplicates.map((d) => d.entity), plans: duplicates.map((d) => d.plan) },
    };
  }
  return { checks: actions.flatMap((a) => checkOf(a.item, a.entity, a.plan) ?? []) };
}

/**
 * Which of these keys hold an item. Eventually consistent reads: half the read units of a
 * consistent read (a 10,000-user preview reads some 50,000 keys at once), at the price of not yet
 * seeing a write of the last second or so — a preview is advice, the import decides.
 */
async function existingKeys(table: Table, keys: readonly Key[]): Promise<Set<string>> {
  const found = new Set<string>();
  await forEachLimited(chunk(keys, KEYS_PER_BATCH), PREVIEW_PARALLELISM, async (part) => {
    for (const item of await batchGetAll(table, part, { attributes: ['PK', 'SK'], consistent: false }))
      found.add(keyString(item as Key));
  });
  return found;
}

export async function previewCommits(
  table: Table,
  writes: Iterable<UserWrite>,
  own: (write: UserWrite) => DynamoUserWrite,
): Promise<WriteResult[]> {
  const described: Described[] = [];
  for (const write of writes) described.push(describe(own(write)));
  const conditioned = new Map<string, Key>();
  for (const d of described) {
    if ('checks' in d) for (const c of d.checks) if (c.needs) conditioned.set(c.id, c.key);
  }
  const existing = await existingKeys(table, [...conditioned.values()]);
  const created = new Set<string>();
  return described.map((d): WriteResult => {
    if ('result' in d) return d.result;
    const failing = d.checks.filter(
      (c) => c.needs && (c.needs === 'absent') === (existing.has(c.id) || created.has(c.id)),
    );
    if (failing.length > 0) {
      return { ok: false, failed: failing.map((c) => c.entity), plans: failing.map((c) => c.plan) };
    }
    for (const c of d.checks) if (c.creates) created.add(c.id);
    return { ok: true };
  });
}
