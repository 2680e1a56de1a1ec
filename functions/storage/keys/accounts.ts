/**
 * Key builders for password-reset, email-verification and WebAuthn account-recovery tokens and for
 * verified emails (see docs/architecture.md "Data model", docs/password-reset-and-verification.md
 * and docs/passkeys.md).
 *
 * - `APP#<a>#TOKEN#<sha256(token)>` / `RESET`, `EMAIL_VERIFICATION` or `WEBAUTHN_RECOVERY`: a token found by its hash
 *   (the token itself is never stored). One GetItem finds it, and the conditional delete of this
 *   item is what makes a token single-use.
 * - On the owner's partition `APP#<a>#U#<owner id>` (the user id's partition, where its metadata,
 *   roles and TOTP devices live): SK `RESET#<token hash>` per password-reset token,
 *   `EVTOKEN#<tenant>#<sha256(email)>#<token hash>` per email-verification token,
 *   `WARECOVER#<tenant>#<sha256(email)>#<token hash>` per account-recovery token (a strongly
 *   consistent Query finds the tokens of one owner, or of one owner, tenant and email), and
 *   `VERIFIED#<sha256(email)>` per verified email that is not the email of the owner's login
 *   method (that one's state is the login method's `verified` flag in the USER item).
 * - Emails are digested in sort keys: any email fits (a normalised email may be twice its input's
 *   length) and one email is never the prefix of another's key.
 * - Every such item also carries the GSI3 user-data entry (keys/metadata.ts): deleting an app
 *   finds them by Query, and removing a user id deletes them with its other data.
 */
import { createHash } from 'node:crypto';
import { appPartition } from './apps.js';

export { userPartition } from './users.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const tokenPartition = (appId: string, tokenHash: string) => `${appPartition(appId)}#TOKEN#${tokenHash}`;
export const RESET_TOKEN_SK = 'RESET';
export const EMAIL_VERIFICATION_TOKEN_SK = 'EMAIL_VERIFICATION';
export const WEBAUTHN_RECOVERY_TOKEN_SK = 'WEBAUTHN_RECOVERY';

export const RESET_TOKEN_PREFIX = 'RESET#';
export const resetTokenSortKey = (tokenHash: string) => `${RESET_TOKEN_PREFIX}${tokenHash}`;

const EMAIL_VERIFICATION_TOKEN_PREFIX = 'EVTOKEN#';
/** The email-verification tokens of one tenant (a `begins_with` prefix). */
export const emailVerificationTenantPrefix = (tenantId: string) => `${EMAIL_VERIFICATION_TOKEN_PREFIX}${tenantId}#`;
/** The tokens of one tenant and email (a `begins_with` prefix). */
export const emailVerificationTokenPrefix = (tenantId: string, email: string) =>
  `${EMAIL_VERIFICATION_TOKEN_PREFIX}${tenantId}#${sha256(email)}#`;
export const emailVerificationTokenSortKey = (tenantId: string, email: string, tokenHash: string) =>
  `${emailVerificationTokenPrefix(tenantId, email)}${tokenHash}`;

const WEBAUTHN_RECOVERY_TOKEN_PREFIX = 'WARECOVER#';
/** The account-recovery tokens of one tenant and email (a `begins_with` prefix). */
export const webauthnRecoveryTokenPrefix = (tenantId: string, email: string) =>
  `${WEBAUTHN_RECOVERY_TOKEN_PREFIX}${tenantId}#${sha256(email)}#`;
export const webauthnRecoveryTokenSortKey = (tenantId: string, email: string, tokenHash: string) =>
  `${webauthnRecoveryTokenPrefix(tenantId, email)}${tokenHash}`;

const VERIFIED_EMAIL_PREFIX = 'VERIFIED#';
export const verifiedEmailSortKey = (email: string) => `${VERIFIED_EMAIL_PREFIX}${sha256(email)}`;

/**
 * The lookup key of the token whose owner-side item has this sort key (the token's hash is its
 * last segment); undefined for any other sort key.
 */
export function tokenLookupKeyOf(appId: string, sortKey: string): { PK: string; SK: string } | undefined {
  const hash = sortKey.slice(sortKey.lastIndexOf('#') + 1);
  if (sortKey.startsWith(RESET_TOKEN_PREFIX)) return { PK: tokenPartition(appId, hash), SK: RESET_TOKEN_SK };
  if (sortKey.startsWith(EMAIL_VERIFICATION_TOKEN_PREFIX)) {
    return { PK: tokenPartition(appId, hash), SK: EMAIL_VERIFICATION_TOKEN_SK };
  }
  if (sortKey.startsWith(WEBAUTHN_RECOVERY_TOKEN_PREFIX)) {
    return { PK: tokenPartition(appId, hash), SK: WEBAUTHN_RECOVERY_TOKEN_SK };
  }
  return undefined;
}

/** Whether a sort key on a user id's partition is an email-verification token or a verified email. */
export const isEmailVerificationSortKey = (sortKey: string) =>
  sortKey.startsWith(EMAIL_VERIFICATION_TOKEN_PREFIX) || sortKey.startsWith(VERIFIED_EMAIL_PREFIX);

/** Whether a sort key on a user id's partition is one of this module's (a token or a verified email). */
export const isAccountDataSortKey = (sortKey: string) =>
  [RESET_TOKEN_PREFIX, EMAIL_VERIFICATION_TOKEN_PREFIX, WEBAUTHN_RECOVERY_TOKEN_PREFIX, VERIFIED_EMAIL_PREFIX].some(
    (p) => sortKey.startsWith(p),
  );
