/**
 * The one eviction rule of the caches an execution environment keeps (opened data keys, wrapped
 * data keys, signing-key lists): a Map in use order, bounded. Map keeps insertion order, so the
 * entry set last is the newest and the first is the one to evict. A library (lru-cache) would do
 * the same with a dependency in every bundle; these caches need only this.
 */

/** Stores `value` under `key` as the cache's newest entry, then evicts the oldest beyond `capacity`. */
export function setNewest<K, V>(cache: Map<K, V>, key: K, value: V, capacity: number): void {
  cache.delete(key);
  cache.set(key, value);
  while (cache.size > capacity) cache.delete(cache.keys().next().value as K);
}
