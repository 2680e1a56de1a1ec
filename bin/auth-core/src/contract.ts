/**
 * What the command shares with the core: the import-payload contract (functions/contract/,
 * docs/import-payload.md) — the wire types it builds, the email and phone normalisers the core
 * stores with, the public tenant, the credential fingerprint the core shows, the staging limit and
 * what a JSON object is.
 * The only module of the command that reaches outside its package; the build bundles it in.
 */
export { credentialFingerprint } from '../../../functions/contract/credential-fingerprints.js';
export { normaliseEmail } from '../../../functions/contract/emails.js';
export {
  type HashingAlgorithm,
  MAX_USERS_PER_STAGING_REQUEST,
  type WireImportUser,
  type WireLoginMethod,
  type WireTotpDevice,
  type WireUserRole,
} from '../../../functions/contract/import-payload.js';
export { isJsonObject, type JsonObject } from '../../../functions/contract/json.js';
export { isLoopbackHost } from '../../../functions/contract/loopback-host.js';
export { e164PhoneNumber, normalisePhoneNumber } from '../../../functions/contract/phone-numbers.js';
export { PUBLIC_TENANT_ID } from '../../../functions/contract/tenants.js';
