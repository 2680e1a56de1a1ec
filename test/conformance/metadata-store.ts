/**
 * What every MetadataStores (functions/domain/metadata/ports.ts) must do, run against the DynamoDB
 * store (test/integration/store-conformance.test.ts) and the in-memory one the unit tests use
 * (test/unit/store-conformance.test.ts): an app sees only its own metadata, and a write
 * conditional on a version holds when many race.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MetadataStores } from '#functions/domain/metadata/ports.js';

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

export function metadataStoreConformance(label: string, stores: () => MetadataStores): void {
  describe(`MetadataStore conformance: ${label}`, () => {
    it('another app sees nothing of an app’s metadata, and cannot delete it', async () => {
      const table = stores();
      const mine = table.forApp(unique('meta-a'));
      const theirs = table.forApp(unique('meta-b'));
      expect(await mine.writeUserMetadata('u1', { a: 1 }, undefined)).toBe(true);
      expect(await theirs.readUserMetadata('u1')).toBeUndefined();
      await theirs.deleteUserMetadata('u1');
      expect(await mine.readUserMetadata('u1')).toEqual({ metadata: { a: 1 }, version: 1 });
      // The other app's first write of the same user id is a first write, not a conflict.
      expect(await theirs.writeUserMetadata('u1', { b: 2 }, undefined)).toBe(true);
      expect((await mine.readUserMetadata('u1'))?.metadata).toEqual({ a: 1 });
      await mine.deleteUserMetadata('u1');
      expect(await mine.readUserMetadata('u1')).toBeUndefined();
      expect((await theirs.readUserMetadata('u1'))?.metadata).toEqual({ b: 2 });
    });

    it('a write holds only at the version it was decided on', async () => {
      const store = stores().forApp(unique('meta-v'));
      expect(await store.writeUserMetadata('u', { v: 1 }, undefined)).toBe(true);
      expect(await store.writeUserMetadata('u', { v: 'again' }, undefined)).toBe(false);
      expect(await store.writeUserMetadata('u', { v: 'stale' }, 7)).toBe(false);
      expect(await store.writeUserMetadata('u', { v: 2 }, 1)).toBe(true);
      expect(await store.readUserMetadata('u')).toEqual({ metadata: { v: 2 }, version: 2 });
    });

    it('of many writes racing from the same version, exactly one wins', async () => {
      const store = stores().forApp(unique('meta-race'));
      const first = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.writeUserMetadata('u', { first: i }, undefined)),
      );
      expect(first.filter(Boolean)).toHaveLength(1);
      const winner = first.indexOf(true);
      expect(await store.readUserMetadata('u')).toEqual({ metadata: { first: winner }, version: 1 });
      const next = await Promise.all(Array.from({ length: 8 }, (_, i) => store.writeUserMetadata('u', { next: i }, 1)));
      expect(next.filter(Boolean)).toHaveLength(1);
      expect(await store.readUserMetadata('u')).toEqual({ metadata: { next: next.indexOf(true) }, version: 2 });
    });
  });
}
