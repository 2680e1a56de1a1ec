import { describe, expect, it } from 'vitest';
import { updateMetadataRequest } from '#functions/domain/metadata/input.js';
import type { Metadata } from '#functions/domain/metadata/merge.js';
import { shallowMergeMetadata } from '#functions/domain/metadata/merge.js';
import { getUserMetadata, updateUserMetadata } from '#functions/domain/metadata/service.js';
import { parseRequest } from '#functions/shared/request-schema.js';
import { memoryMetadataStores } from '../helpers/memory-metadata-store.js';

// The route's schema, read as the pipeline reads a body.
const parseUpdateMetadata = (body: unknown) => parseRequest(updateMetadataRequest, body);

describe('shallowMergeMetadata', () => {
  it('replaces top-level keys, deletes null ones, keeps the rest, and does not mutate its inputs', () => {
    const current = { a: 1, b: { x: 1 }, c: 'keep' };
    const update = { a: 2, b: { y: 2 }, c: null, d: [1] };
    expect(shallowMergeMetadata(current, update)).toEqual({ a: 2, b: { y: 2 }, d: [1] });
    expect(current).toEqual({ a: 1, b: { x: 1 }, c: 'keep' });
  });

  it('ignores a null for a missing key and keeps falsy values', () => {
    expect(shallowMergeMetadata({}, { gone: null, zero: 0, no: false, empty: '' })).toEqual({
      zero: 0,
      no: false,
      empty: '',
    });
  });

  it('keeps a key named __proto__ as data: it is stored and read back, and sets no prototype', () => {
    const update = JSON.parse('{"__proto__":{"admin":true},"a":1}') as Metadata;
    const merged = shallowMergeMetadata({}, update);
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"admin":true},"a":1}');
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect((merged as { admin?: unknown }).admin).toBeUndefined();
    expect(JSON.stringify(shallowMergeMetadata(merged, JSON.parse('{"__proto__":null}') as Metadata))).toBe('{"a":1}');
  });
});

describe('metadata use cases', () => {
  it('retries the read-merge-write after a concurrent change', async () => {
    const stores = memoryMetadataStores(2);
    const store = stores.forApp('a');
    const result = await updateUserMetadata(store, { userId: 'u', update: { k: 1 } });
    expect(result).toEqual({ status: 'OK', metadata: { k: 1 } });
    expect(stores.saves).toBe(3);
    expect(await getUserMetadata(store, { userId: 'u' })).toEqual({ status: 'OK', metadata: { k: 1 } });
  });

  it('parses the body with the core messages', () => {
    expect(parseUpdateMetadata({ userId: 'u', metadataUpdate: { a: 1 } })).toEqual({ userId: 'u', update: { a: 1 } });
    expect(() => parseUpdateMetadata({ userId: 'u' })).toThrow("Field name 'metadataUpdate' is invalid in JSON input");
    expect(() => parseUpdateMetadata({ metadataUpdate: {} })).toThrow("Field name 'userId' is invalid in JSON input");
  });
});
