import type { Metadata } from './merge.js';

export interface StoredMetadata {
  readonly metadata: Metadata;
  /** Changes on every write; guards read-merge-write against lost updates. */
  readonly version: number;
}

/** What the metadata use cases need from storage. */
export interface MetadataStore {
  getMetadata(appId: string, userId: string): Promise<StoredMetadata | undefined>;
  /** Optimistic write: false when the stored item changed since `expectedVersion` (undefined = absent). */
  saveMetadata(
    appId: string,
    userId: string,
    metadata: Metadata,
    expectedVersion: number | undefined,
  ): Promise<boolean>;
  deleteMetadata(appId: string, userId: string): Promise<void>;
}
