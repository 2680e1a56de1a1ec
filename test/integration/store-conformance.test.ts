/**
 * The conformance suites of the stores bound to their app (test/conformance/), run against the
 * DynamoDB stores on DynamoDB Local.
 */
import { metadataStoreOf, roleStoreOf, totpStoreOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { metadataStoreConformance } from '../conformance/metadata-store.js';
import { roleStoreConformance } from '../conformance/role-store.js';
import { totpStoreConformance } from '../conformance/totp-store.js';

metadataStoreConformance('DynamoDB', () => metadataStoreOf(baseTable));
roleStoreConformance('DynamoDB', () => roleStoreOf(baseTable));
totpStoreConformance('DynamoDB', () => totpStoreOf(baseTable));
