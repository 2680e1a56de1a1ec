/**
 * An in-memory MetadataStores (functions/domain/metadata/ports.ts) with the same conditional
 * semantics as the DynamoDB one, for unit tests of the metadata use cases; `conflicts` first
 * writes fail as if another write got in between.
 */
import type { MetadataStores, StoredMetadata } from '#functions/domain/metadata/ports.js';

export interface MemoryMetadataStores extends MetadataStores {
  /** Writes attempted, in every app. */
  readonly saves: number;
}

export function memoryMetadataStores(conflicts = 0): MemoryMetadataStores {
  const data = new Map<string, StoredMetadata>();
  let remainingConflicts = conflicts;
  let saves = 0;
  return {
    get saves() {
      return saves;
    },
    forApp: (appId) => {
      const key = (userId: string) => `${appId}\u0000${userId}`;
      return {
        async readUserMetadata(userId) {
          return data.get(key(userId));
        },
        async writeUserMetadata(userId, metadata, expectedVersion) {
          saves++;
          if (remainingConflicts > 0) {
            remainingConflicts--;
            return false;
          }
          if (data.get(key(userId))?.version !== expectedVersion) return false;
          data.set(key(userId), { metadata, version: (expectedVersion ?? 0) + 1 });
          return true;
        },
        async deleteUserMetadata(userId) {
          data.delete(key(userId));
        },
      };
    },
  };
}
