/**
 * Key builders for WebAuthn (passkeys; see docs/architecture.md "Data model" and docs/passkeys.md):
 *
 * - `APP#<a>#WAOPT#<optionsId>` / `OPTIONS`: the options of one registration or sign-in ceremony
 *   (its challenge, relying party, origin, expiry). Sign-up and sign-in find them by id alone, in
 *   any tenant of the app, as the reference does; the tenant is an attribute.
 * - `APP#<a>#WACRED#<credentialId>` / `CREDENTIAL`: one passkey (its public key, counter and
 *   owner). Its key is its id, so a credential id is unique in the app by a conditional put, and a
 *   sign-in finds the passkey with one read.
 * - GSI2 `APP#<a>#WEBAUTHN#<0..15>` / `OPT#<tenant>#<optionsId>` or `CRED#<sha256(credentialId)>`:
 *   every options item and passkey of an app (app deletion), options by tenant (tenant deletion),
 *   sharded by id so no index partition runs hot. A credential id may be up to 1,364 characters,
 *   more than a sort key holds: its digest stands for it there.
 *
 * Options ids are the core's UUIDs and credential ids are base64url: neither holds a `#`.
 */
import { createHash } from 'node:crypto';
import { appPartition } from './apps.js';

export const webauthnOptionsPartition = (appId: string, optionsId: string) =>
  `${appPartition(appId)}#WAOPT#${optionsId}`;
export const WEBAUTHN_OPTIONS_SK = 'OPTIONS';

export const webauthnCredentialPartition = (appId: string, credentialId: string) =>
  `${appPartition(appId)}#WACRED#${credentialId}`;
export const WEBAUTHN_CREDENTIAL_SK = 'CREDENTIAL';

export const WEBAUTHN_SHARDS = 16;
export const webauthnAppIndexPartition = (appId: string, shard: number) => `${appPartition(appId)}#WEBAUTHN#${shard}`;
export const webauthnTenantOptionsPrefix = (tenantId: string) => `OPT#${tenantId}#`;
export const webauthnOptionsIndexSortKey = (tenantId: string, optionsId: string) =>
  `${webauthnTenantOptionsPrefix(tenantId)}${optionsId}`;
export const webauthnCredentialIndexSortKey = (credentialId: string) =>
  `CRED#${createHash('sha256').update(credentialId, 'utf8').digest('hex')}`;
