/**
 * The dry run's duplicate check across chunks: the core's dry run sees one chunk at a time, so the
 * command remembers, for the whole file, the keys under which two users of one tenant cannot
 * coexist, and names a user that repeats a key of a user in an earlier chunk.
 */
import { normaliseEmail, normalisePhoneNumber, type WireImportUser } from '../contract.js';
import { FingerprintTable } from '../fingerprints.js';

/**
 * Keys under which two users of one tenant cannot coexist, with emails and phone numbers normalised
 * as the core stores them (the contract's rules): an export passed through as written
 * (`--from supertokens`) may spell one number two ways.
 */
export function uniquenessKeys(user: WireImportUser, fallbackTenant: string): string[] {
  const keys: string[] = [];
  if (user.externalUserId !== undefined) keys.push(`external id ${user.externalUserId.trim()}`);
  for (const method of user.loginMethods ?? []) {
    const email = typeof method.email === 'string' ? normaliseEmail(method.email) : undefined;
    const phone = typeof method.phoneNumber === 'string' ? normalisePhoneNumber(method.phoneNumber) : undefined;
    for (const tenant of method.tenantIds ?? [fallbackTenant]) {
      if (method.recipeId === 'emailpassword' && email) keys.push(`email ${email} (emailpassword) in tenant ${tenant}`);
      if (method.recipeId === 'passwordless' && email) keys.push(`email ${email} (passwordless) in tenant ${tenant}`);
      if (phone) keys.push(`phone number ${phone} in tenant ${tenant}`);
      if (method.recipeId === 'thirdparty' && method.thirdPartyId) {
        keys.push(`third-party id ${method.thirdPartyId} ${method.thirdPartyUserId} in tenant ${tenant}`);
      }
    }
  }
  return [...new Set(keys)];
}

export class DuplicateCheck {
  /** Key → payload index of the first user that had it. */
  private readonly firstWith = new FingerprintTable(1 << 16);

  constructor(private readonly tenantId: string) {}

  /**
   * Records the user's keys (it is `payloadIndex` in the payload order, in the chunk that starts at
   * `chunkStart`) and returns a message per key a user of an earlier chunk already had; `positionOf`
   * gives a payload index's record position.
   */
  check(
    user: WireImportUser,
    payloadIndex: number,
    chunkStart: number,
    positionOf: (payloadIndex: number) => number,
  ): string[] {
    const messages: string[] = [];
    for (const key of uniquenessKeys(user, this.tenantId)) {
      const first = this.firstWith.addIfAbsent(key, payloadIndex);
      // Within one chunk the core's dry run finds the conflict itself.
      if (first === undefined || first >= chunkStart) continue;
      messages.push(`duplicate: the same ${key} as record ${positionOf(first)} (in an earlier chunk)`);
    }
    return messages;
  }
}
