/**
 * FNV-1a (32-bit) over the UTF-16 code units of `value`, modulo `shards`: a stable, evenly spread
 * shard for an id, the same in every process and runtime. Every sharded key of the table (user
 * counters, index shards, staged-row counters) and the stack's route groups use this one function.
 */
export function shardOf(value: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** 0 … shards−1, for reading every shard of a sharded key. */
export const allShards = (shards: number): number[] => Array.from({ length: shards }, (_, shard) => shard);
