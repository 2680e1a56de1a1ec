import type { Metadata } from './merge.js';

export interface StoredMetadata {
  readonly metadata: Metadata;
  /** Changes on every write; guards read-merge-write against lost updates. */
  readonly version: number;
}

/** What the metadata use cases need from storage: the metadata of one app's user ids. */
export interface MetadataStore {
  readUserMetadata(userId: string): Promise<StoredMetadata | undefined>;
  /** Optimistic write: false when the stored item changed since `expectedVersion` (undefined = absent). */
  writeUserMetadata(userId: string, metadata: Metadata, expectedVersion: number | undefined): Promise<boolean>;
  deleteUserMetadata(userId: string): Promise<void>;
}

/** The metadata of every app of a table; wiring binds it to the request's app (docs/architecture.md "Stores bound to their app"). */
export interface MetadataStores {
  forApp(appId: string): MetadataStore;
}
