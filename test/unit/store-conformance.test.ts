/**
 * The conformance suites of the stores bound to their app (test/conformance/), run against the
 * in-memory stores the unit tests use (the DynamoDB stores run the same suites in
 * test/integration/store-conformance.test.ts).
 */
import { metadataStoreConformance } from '../conformance/metadata-store.js';
import { oauthClientStoreConformance } from '../conformance/oauth-client-store.js';
import { roleStoreConformance } from '../conformance/role-store.js';
import { totpStoreConformance } from '../conformance/totp-store.js';
import { memoryMetadataStores } from '../helpers/memory-metadata-store.js';
import { memoryOAuthClientStores } from '../helpers/memory-oauth-client-store.js';
import { memoryRoleStores } from '../helpers/memory-role-store.js';
import { memoryTotpStore } from '../helpers/memory-totp-store.js';

metadataStoreConformance('in memory', () => memoryMetadataStores());
roleStoreConformance('in memory', () => memoryRoleStores());
totpStoreConformance('in memory', () => memoryTotpStore());
oauthClientStoreConformance('in memory', () => memoryOAuthClientStores());
