/**
 * The conformance suites of the stores bound to their app (test/conformance/), run against the
 * DynamoDB stores on DynamoDB Local.
 */
import { metadataStoreOf } from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { metadataStoreConformance } from '../conformance/metadata-store.js';

metadataStoreConformance('DynamoDB', () => metadataStoreOf(baseTable));
