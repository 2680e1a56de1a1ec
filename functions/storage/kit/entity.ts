/**
 * Entities: each item type declares once how its key and its index entries are made from its
 * data (keys as data). Stores build items, updates and queries from the declaration, so an index
 * key is never assembled by hand in an update expression, and the attribute names come from the
 * table schema.
 */
import { type IndexName, TABLE_SCHEMA } from '../table.js';
import { keyAttributes } from './query.js';
import type { Item, Key } from './table.js';

export interface IndexKey<I> {
  readonly pk: (input: I) => string;
  readonly sk: (input: I) => string;
}

export interface EntityDefinition<K, X extends Partial<Record<IndexName, IndexKey<never>>>> {
  /** Written as the `entityType` attribute of every item. */
  readonly type: string;
  /**
   * What an item of this type holds, as the subject of a message when DynamoDB refuses one as
   * written (`The role's permissions` is too large to store: …); see errors.ts.
   */
  readonly subject?: string;
  readonly key: (input: K) => Key;
  readonly indexes?: X;
}

const SUBJECTS = new Map<string, string>();

/** The declared subject of an item's entity (by its `entityType`), if any. */
export function subjectOfItem(item: Item | undefined): string | undefined {
  const type = item?.[TABLE_SCHEMA.entityTypeAttribute];
  return typeof type === 'string' ? SUBJECTS.get(type) : undefined;
}

type IndexInput<X, N extends keyof X> = X[N] extends IndexKey<infer I> ? I : never;

export interface Entity<K, X extends Partial<Record<IndexName, IndexKey<never>>>> {
  readonly type: string;
  readonly subject?: string | undefined;
  readonly key: (input: K) => Key;
  /** Both key attributes of one index entry (`{GSI1PK, GSI1SK}`). */
  indexKeys<N extends keyof X & IndexName>(index: N, input: IndexInput<X, N>): Record<string, string>;
  /** The partition attribute of one index entry only: moves an item to another partition of the index. */
  indexPartition<N extends keyof X & IndexName>(index: N, input: IndexInput<X, N>): Record<string, string>;
  /** A whole item: key, entity type, the given index entries and the attributes. */
  item(key: K, attributes: Item, indexes?: { [N in keyof X & IndexName]?: IndexInput<X, N> }): Item;
}

export function defineEntity<K, X extends Partial<Record<IndexName, IndexKey<never>>> = Record<never, never>>(
  definition: EntityDefinition<K, X>,
): Entity<K, X> {
  if (definition.subject !== undefined) SUBJECTS.set(definition.type, definition.subject);
  const index = (name: IndexName) => {
    const keys = definition.indexes?.[name] as IndexKey<unknown> | undefined;
    if (!keys) throw new Error(`${definition.type} has no ${name} entry`);
    return keys;
  };
  const entity: Entity<K, X> = {
    type: definition.type,
    subject: definition.subject,
    key: definition.key,
    indexKeys(name, input) {
      const attrs = keyAttributes(name);
      const keys = index(name);
      return { [attrs.pk]: keys.pk(input), [attrs.sk]: keys.sk(input) };
    },
    indexPartition(name, input) {
      return { [keyAttributes(name).pk]: index(name).pk(input) };
    },
    item(key, attributes, indexes = {}) {
      const out: Item = { ...definition.key(key), [TABLE_SCHEMA.entityTypeAttribute]: definition.type };
      for (const [name, input] of Object.entries(indexes)) {
        if (input !== undefined) Object.assign(out, entity.indexKeys(name as never, input as never));
      }
      return Object.assign(out, attributes);
    },
  };
  return entity;
}

/**
 * An UpdateExpression from data: `set` attributes are assigned, `add` numbers are added (counters).
 * Every name and value goes through placeholders, so reserved words (`status`) need no care.
 */
export function updateExpression(
  set: Item,
  add: Readonly<Record<string, number>> = {},
): { UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Item } {
  const names: Record<string, string> = {};
  const values: Item = {};
  const clause = (entries: [string, unknown][], prefix: string, joiner: string) =>
    entries.map(([name, value], i) => {
      names[`#${prefix}${i}`] = name;
      values[`:${prefix}${i}`] = value;
      return `#${prefix}${i}${joiner}:${prefix}${i}`;
    });
  const sets = clause(Object.entries(set), 's', ' = ');
  const adds = clause(Object.entries(add), 'a', ' ');
  const parts = [
    ...(sets.length > 0 ? [`SET ${sets.join(', ')}`] : []),
    ...(adds.length > 0 ? [`ADD ${adds.join(', ')}`] : []),
  ];
  return { UpdateExpression: parts.join(' '), ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}
