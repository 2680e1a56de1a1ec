/**
 * The conformance suites of the stores bound to their app (test/conformance/), run against the
 * DynamoDB stores on DynamoDB Local.
 */

import { expect } from 'vitest';
import { accountWriteActions } from '#functions/storage/account-tokens.js';
import { transact } from '#functions/storage/kit/transact.js';
import { webauthnWriteActions } from '#functions/storage/webauthn-store.js';
import {
  accountTokenStoreOf,
  metadataStoreOf,
  oauthClientStoreOf,
  roleStoreOf,
  totpStoreOf,
  webauthnStoreOf,
} from '#functions/wiring/stores.js';
import { baseTable } from '#functions/wiring/tables.js';
import { accountTokenStoreConformance } from '../conformance/account-token-store.js';
import { metadataStoreConformance } from '../conformance/metadata-store.js';
import { oauthClientStoreConformance } from '../conformance/oauth-client-store.js';
import { roleStoreConformance } from '../conformance/role-store.js';
import { totpStoreConformance } from '../conformance/totp-store.js';
import { webauthnStoreConformance } from '../conformance/webauthn-store.js';

metadataStoreConformance('DynamoDB', () => metadataStoreOf(baseTable));
roleStoreConformance('DynamoDB', () => roleStoreOf(baseTable));
totpStoreConformance('DynamoDB', () => totpStoreOf(baseTable));
oauthClientStoreConformance('DynamoDB', () => oauthClientStoreOf(baseTable));
webauthnStoreConformance(
  'DynamoDB',
  () => webauthnStoreOf(baseTable),
  async (appId, passkey) => {
    const actions = webauthnWriteActions(baseTable, appId, { register: passkey }).map((a) => a.item);
    expect((await transact(baseTable, actions)).ok).toBe(true);
  },
);
accountTokenStoreConformance(
  'DynamoDB',
  () => accountTokenStoreOf(baseTable),
  async (appId, writes) =>
    (
      await transact(
        baseTable,
        accountWriteActions(baseTable, appId, writes).map((a) => a.item),
      )
    ).ok,
);
