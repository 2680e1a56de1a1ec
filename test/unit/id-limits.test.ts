import { describe, expect, it } from 'vitest';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import {
  emailVerificationTokenSortKey,
  resetTokenSortKey,
  tokenPartition,
  verifiedEmailSortKey,
  webauthnRecoveryTokenSortKey,
} from '#functions/storage/keys/accounts.js';
import { appPartition, tenantSortKey } from '#functions/storage/keys/apps.js';
import { oauthClientSortKey, oauthClientsPartition } from '#functions/storage/keys/oauth-clients.js';
import {
  roleMembersIndexPartition,
  roleMembersIndexSortKey,
  roleSortKey,
  userRoleSortKey,
} from '#functions/storage/keys/roles.js';
import {
  stagedStatusIndexPartition,
  stagedStatusIndexSortKey,
  stagedUserPartition,
} from '#functions/storage/keys/staging.js';
import { totpAttemptsSortKey } from '#functions/storage/keys/totp.js';
import {
  accountRefSortKey,
  appUsersIndexSortKey,
  counterTenantSortKey,
  emailPartition,
  externalIdPartition,
  phonePartition,
  searchIndexPartition,
  searchIndexSortKey,
  tenantUsersIndexPartition,
  tenantUsersIndexSortKey,
  thirdPartyPartition,
  totpDeviceSortKey,
  userPartition,
} from '#functions/storage/keys/users.js';
import {
  webauthnCredentialIndexSortKey,
  webauthnCredentialPartition,
  webauthnOptionsIndexSortKey,
  webauthnOptionsPartition,
} from '#functions/storage/keys/webauthn.js';

/** DynamoDB's limits on a key attribute's value, in UTF-8 bytes (the table's and its indexes'). */
const PARTITION_KEY_BYTES = 2048;
const SORT_KEY_BYTES = 1024;

/**
 * Every id at its limit, in the worst characters: app and tenant ids are `[a-z0-9-]` (1 byte
 * each); any other id may hold characters of 3 UTF-8 bytes per UTF-16 code unit (a character
 * outside the BMP is 4 bytes for 2 units, less), and lower-casing an email keeps it within that
 * (`İ`, 2 bytes, becomes `i̇`, 3 bytes in 2 units).
 */
const wide = (kind: keyof typeof ID_LIMITS) => '中'.repeat(ID_LIMITS[kind]);
const a = 'a'.repeat(ID_LIMITS.appId);
const t = 'a'.repeat(ID_LIMITS.tenantId);
const ORIGIN = 9_999_999_999_999;
/** A token's hash (SHA-256, hex). */
const SHA256_HEX = 'f'.repeat(64);

/** Each key the core builds from ids, at the limits, with the key attribute it goes into. */
const KEYS: [string, string, 'partition' | 'sort'][] = [
  ['app', appPartition(a), 'partition'],
  ['tenant', tenantSortKey(t), 'sort'],
  ['user (and its metadata, roles, TOTP devices)', userPartition(a, wide('userId')), 'partition'],
  ['email login', emailPartition(a, t, wide('email').repeat(2)), 'partition'],
  ['phone login', phonePartition(a, t, wide('phoneNumber')), 'partition'],
  ['third-party login', thirdPartyPartition(a, t, wide('thirdPartyId'), wide('thirdPartyUserId')), 'partition'],
  ['external id mapping', externalIdPartition(a, wide('externalUserId')), 'partition'],
  ['account reference', accountRefSortKey(wide('userId')), 'sort'],
  ["tenant's users (GSI1)", tenantUsersIndexPartition(a, t), 'partition'],
  ["tenant's users by time joined (GSI1)", tenantUsersIndexSortKey(ORIGIN, wide('userId')), 'sort'],
  ["app's users (GSI2)", appUsersIndexSortKey(wide('userId')), 'sort'],
  ['user counter per tenant', counterTenantSortKey(t), 'sort'],
  ['role', roleSortKey(wide('role')), 'sort'],
  ["user's role in a tenant", userRoleSortKey(t, wide('role')), 'sort'],
  ['users with a role (GSI2)', roleMembersIndexPartition(a, wide('role'), 7), 'partition'],
  ['users with a role, by tenant (GSI2)', roleMembersIndexSortKey(t, wide('userId')), 'sort'],
  ['TOTP device', totpDeviceSortKey(wide('totpDeviceName')), 'sort'],
  ['TOTP attempts of a user id in a tenant', totpAttemptsSortKey(t), 'sort'],
  ['staged user', stagedUserPartition(a, wide('stagedId')), 'partition'],
  ['staged users by status (GSI1)', stagedStatusIndexPartition(a, 'PROCESSING', 15), 'partition'],
  ['staged users by time (GSI1)', stagedStatusIndexSortKey(ORIGIN, wide('stagedId')), 'sort'],
  ['one-time token by hash', tokenPartition(a, SHA256_HEX), 'partition'],
  ['password-reset token of a user id', resetTokenSortKey(SHA256_HEX), 'sort'],
  [
    'email-verification token of a user id',
    emailVerificationTokenSortKey(t, wide('email').repeat(2), SHA256_HEX),
    'sort',
  ],
  ['verified email of a user id', verifiedEmailSortKey(wide('email').repeat(2)), 'sort'],
  ['search entry of an email (GSI1)', searchIndexPartition(a, t, 'DOMAIN', wide('email').repeat(2)), 'partition'],
  ['search entry of an email (GSI1)', searchIndexSortKey(wide('email').repeat(2)), 'sort'],
  [
    'search entry of a provider (GSI1)',
    searchIndexSortKey(`${wide('thirdPartyId')}::${wide('thirdPartyUserId')}`),
    'sort',
  ],
  ["app's OAuth2 clients", oauthClientsPartition(a), 'partition'],
  ['OAuth2 client', oauthClientSortKey(wide('oauthClientId')), 'sort'],
  ['passkey recovery token of a user id', webauthnRecoveryTokenSortKey(t, wide('email').repeat(2), SHA256_HEX), 'sort'],
  // Options ids longer than 128 characters and credential ids longer than 1,364 (1,023 bytes,
  // base64url) are never looked up (functions/domain/webauthn/deps.ts, functions/domain/users/credential-ids.ts).
  ['passkey options', webauthnOptionsPartition(a, '中'.repeat(128)), 'partition'],
  ['passkey options of a tenant (GSI2)', webauthnOptionsIndexSortKey(t, '中'.repeat(128)), 'sort'],
  ['passkey', webauthnCredentialPartition(a, 'A'.repeat(1364)), 'partition'],
  ['passkeys of an app (GSI2)', webauthnCredentialIndexSortKey('A'.repeat(1364)), 'sort'],
];

describe('id limits', () => {
  it.each(KEYS)('keep the key of %s within DynamoDB’s limit with every id at its limit', (_, key, attribute) => {
    const bytes = Buffer.byteLength(key, 'utf8');
    expect(bytes).toBeLessThanOrEqual(attribute === 'partition' ? PARTITION_KEY_BYTES : SORT_KEY_BYTES);
  });
});
