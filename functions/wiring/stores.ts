/**
 * The stores of one app's table, each built on demand and kept per table (building one is cheap:
 * they are closures over the table). Wiring modules ask here for the stores their use cases
 * take, one accessor per store, so a function's bundle carries only the stores it uses; nothing
 * else builds a store.
 */
import type { AccountTokenStores } from '#functions/domain/accounts/ports.js';
import type { IdempotencyStore, StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import type { DashboardStore } from '#functions/domain/dashboard/ports.js';
import type { MetadataStores } from '#functions/domain/metadata/ports.js';
import type { OAuthClientStores } from '#functions/domain/oauth-clients/ports.js';
import type { PasswordlessStore } from '#functions/domain/passwordless/ports.js';
import type { RoleStores } from '#functions/domain/roles/ports.js';
import type { SessionStore } from '#functions/domain/sessions/ports.js';
import type { TotpStores } from '#functions/domain/totp/ports.js';
import type { UserStore } from '#functions/domain/users/ports.js';
import type { WebauthnStores } from '#functions/domain/webauthn/ports.js';
import { createAccountTokenStore } from '#functions/storage/account-tokens.js';
import { createDashboardStore } from '#functions/storage/dashboard-store.js';
import { createIdempotencyStore } from '#functions/storage/idempotency-store.js';
import type { Table } from '#functions/storage/kit/index.js';
import { createMetadataStore } from '#functions/storage/metadata-store.js';
import { createOAuthClientStore } from '#functions/storage/oauth-client-store.js';
import { createPasswordlessStore } from '#functions/storage/passwordless-store.js';
import { createRoleStore } from '#functions/storage/role-store.js';
import { createSessionStore } from '#functions/storage/sessions/session-store.js';
import { createStagingStore } from '#functions/storage/staging/store.js';
import { createTenantStore } from '#functions/storage/tenant-store.js';
import { createTotpStore } from '#functions/storage/totp-store.js';
import { createUserStore } from '#functions/storage/users/store.js';
import { createWebauthnStore } from '#functions/storage/webauthn-store.js';
import { credentialsEnvelope } from './credentials.js';
import { baseTable } from './tables.js';

export interface AppStores {
  readonly users: UserStore;
  readonly staging: StagingStore;
  /** Requests remembered under an Idempotency-Key. */
  readonly idempotency: IdempotencyStore;
  /** The user-management dashboard's own users and sessions. */
  readonly dashboard: DashboardStore;
  readonly roles: RoleStores;
  readonly metadata: MetadataStores;
  readonly totp: TotpStores;
  /** Password-reset and email-verification tokens, verified emails. */
  readonly accountTokens: AccountTokenStores;
  /** Passwordless devices and codes. */
  readonly passwordless: PasswordlessStore;
  /** OAuth2 clients (their secrets sealed). */
  readonly oauthClients: OAuthClientStores;
  /** WebAuthn options and passkeys. */
  readonly webauthn: WebauthnStores;
}

/** Built stores by kind and table name. */
const built = new Map<string, unknown>();

function kept<S>(kind: keyof AppStores | 'sessions', table: Table, create: (table: Table) => S): S {
  const key = `${kind}\u0000${table.name}`;
  let store = built.get(key) as S | undefined;
  if (store === undefined) {
    store = create(table);
    built.set(key, store);
  }
  return store;
}

export const userStoreOf = (table: Table): UserStore =>
  kept('users', table, (t) => createUserStore(t, credentialsEnvelope));
export const stagingStoreOf = (table: Table): StagingStore =>
  kept('staging', table, (t) => createStagingStore(t, baseTable, credentialsEnvelope));
export const idempotencyStoreOf = (table: Table): IdempotencyStore =>
  kept('idempotency', table, createIdempotencyStore);
export const dashboardStoreOf = (table: Table): DashboardStore => kept('dashboard', table, createDashboardStore);
export const roleStoreOf = (table: Table): RoleStores => kept('roles', table, createRoleStore);
export const metadataStoreOf = (table: Table): MetadataStores => kept('metadata', table, createMetadataStore);
export const totpStoreOf = (table: Table): TotpStores =>
  kept('totp', table, (t) => createTotpStore(t, credentialsEnvelope));
export const accountTokenStoreOf = (table: Table): AccountTokenStores =>
  kept('accountTokens', table, createAccountTokenStore);
export const passwordlessStoreOf = (table: Table): PasswordlessStore =>
  kept('passwordless', table, createPasswordlessStore);
export const oauthClientStoreOf = (table: Table): OAuthClientStores =>
  kept('oauthClients', table, (t) => createOAuthClientStore(t, credentialsEnvelope));
export const webauthnStoreOf = (table: Table): WebauthnStores => kept('webauthn', table, createWebauthnStore);
/** Sessions (the session use cases, and account linking, whose links and unlinks end sessions). */
export const sessionStoreOf = (table: Table): SessionStore => kept('sessions', table, createSessionStore);

/**
 * Every store of an app's table at once (the tests and the bench; routes take only theirs).
 * @internal Exported for the integration tests, which seed and inspect an app through every store.
 */
export const storesOf = (table: Table): AppStores => ({
  users: userStoreOf(table),
  staging: stagingStoreOf(table),
  idempotency: idempotencyStoreOf(table),
  dashboard: dashboardStoreOf(table),
  roles: roleStoreOf(table),
  metadata: metadataStoreOf(table),
  totp: totpStoreOf(table),
  accountTokens: accountTokenStoreOf(table),
  passwordless: passwordlessStoreOf(table),
  oauthClients: oauthClientStoreOf(table),
  webauthn: webauthnStoreOf(table),
});

/** Apps and tenants: always the base table. */
export const tenantStore = createTenantStore(baseTable, credentialsEnvelope);
