/**
 * Key builders for requests remembered under an `Idempotency-Key` (see docs/architecture.md "Data model").
 *
 * - `APP#<a>#IDEM#<sha256(key)>` is one key's partition: SK `REQUEST` holds the record (the
 *   body's digest, the claim's generation, its lease, and once answered where the answer is); SK
 *   `ANSWER#<answer id>#<n>` the answer's compressed parts (each attempt writes its own); SK `CHUNK#<generation>#<round>#<shard>#<n>`
 *   one marker per group of staged rows, written in the same transaction as the rows (so a
 *   repeat knows which groups committed), then marked once the group's import messages were sent.
 *   Everything carries the TTL attribute.
 * - The key is hashed: any printable key fits, and none can reach into another partition.
 * - GSI1 `APP#<a>#IDEMPOTENCY` / `<sha256(key)>` lists an app's records (app deletion).
 */
import { createHash } from 'node:crypto';
import { appPartition } from './apps.js';

const digestOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export const idempotencyPartition = (appId: string, key: string) => `${appPartition(appId)}#IDEM#${digestOf(key)}`;
export const IDEMPOTENCY_RECORD_SK = 'REQUEST';

const pad = (n: number) => String(n).padStart(4, '0');
export const idempotencyAnswerPrefix = (answerId: string) => `ANSWER#${answerId}#`;
export const idempotencyAnswerSortKey = (answerId: string, part: number) =>
  `${idempotencyAnswerPrefix(answerId)}${pad(part)}`;
export const idempotencyChunkPrefix = (generation: string, round: number) => `CHUNK#${generation}#${round}#`;
export const idempotencyChunkSortKey = (generation: string, round: number, shard: number, part: number) =>
  `${idempotencyChunkPrefix(generation, round)}${shard}#${part}`;

/** GSI1: the idempotency records of an app. */
export const idempotencyIndexPartition = (appId: string) => `${appPartition(appId)}#IDEMPOTENCY`;
export const idempotencyIndexSortKey = (key: string) => digestOf(key);
