/**
 * Clerk: the CSV the dashboard exports (Settings → User exports), with a header row:
 * id, first_name, last_name, username, primary_email_address, primary_phone_number,
 * verified_email_addresses, unverified_email_addresses, verified_phone_numbers,
 * unverified_phone_numbers, totp_secret, password_digest, password_hasher. The digests of Clerk's
 * hashers the core verifies are converted to its forms (hashes.ts); the others are reported.
 * Second factors: `totp_secret` (base32) becomes a TOTP device; the export carries no backup codes
 * and does not say who uses SMS codes as a second factor, so those cannot be told apart, or carried.
 */
import { isJsonObject, normaliseEmail, type WireImportUser, type WireLoginMethod } from '../contract.js';
import { maskPhone } from '../personal.js';
import {
  type ConvertOptions,
  emailOf,
  finishLoginMethods,
  idText,
  inPayloadOrder,
  listOf,
  passwordMethod,
  phoneNumberOf,
  text,
  textFields,
  withMetadata,
} from './common.js';
import { type Conversion, converted, rejected } from './conversion.js';
import { clerkHash } from './hashes.js';
import { convertingAlone, hasKey, type SourceDefinition } from './source.js';
import { canonicalBase32, totpDevice } from './totp.js';

/** Clerk's TOTP: 30-second period, 6 digits, SHA-1, which the core's defaults match. */
const CLERK_TOTP_PERIOD = 30;

export const clerk: SourceDefinition = {
  name: 'clerk',
  flags: [],
  layout: () => 'csv',
  checkFirst: (value) => (hasKey(value, 'id') ? undefined : 'no "id" column: not a Clerk dashboard export'),
  open: convertingAlone(convertClerk),
};

export function convertClerk(record: unknown, options: ConvertOptions): Conversion {
  if (!isJsonObject(record)) return rejected(undefined, 'the row is not an object');
  const id = idText(record.id);
  if (id === undefined) return rejected(undefined, 'id is missing');
  const methods: WireLoginMethod[] = [];
  const problems: string[] = [];

  const verifiedEmails = listOf(record.verified_email_addresses).map(normaliseEmail);
  const unverifiedEmails = listOf(record.unverified_email_addresses).map(normaliseEmail);
  const email = emailOf(record.primary_email_address) ?? emailOf(verifiedEmails[0]);
  // The primary address is verified unless the export lists it as unverified.
  const emailVerified = email !== undefined && (verifiedEmails.includes(email) || !unverifiedEmails.includes(email));

  const digest = text(record.password_digest);
  const hasher = text(record.password_hasher)?.toLowerCase();
  if (digest !== undefined) {
    const hash = hasher === undefined ? undefined : clerkHash(hasher, digest);
    if (hash === undefined) problems.push('password_hasher is empty');
    else if (!hash.ok) problems.push(hash.reason);
    else if (email === undefined) {
      problems.push('the user has a password but no email address');
    } else {
      methods.push(passwordMethod(undefined, email, hash, emailVerified));
    }
  } else if (email !== undefined) {
    methods.push({ recipeId: 'passwordless', email });
  }

  const verifiedPhones = listOf(record.verified_phone_numbers);
  const rawPhone = text(record.primary_phone_number) ?? verifiedPhones[0];
  if (rawPhone !== undefined) {
    const phone = phoneNumberOf(rawPhone);
    if (phone === undefined)
      problems.push(`primary_phone_number ${maskPhone(rawPhone)} is not a valid international number`);
    else methods.push({ recipeId: 'passwordless', phoneNumber: phone });
  }

  if (problems.length > 0) return rejected(id, ...problems);
  if (methods.length === 0) return rejected(id, 'the user has no email address or phone number');

  const user: WireImportUser = { externalUserId: id, loginMethods: finishLoginMethods(methods, options) };
  const metadata = textFields(record, ['first_name', 'last_name', 'username']);
  const otherEmails = [...verifiedEmails, ...unverifiedEmails].filter((e) => e !== email);
  if (otherEmails.length > 0) metadata.other_email_addresses = [...new Set(otherEmails)];
  const primaryPhone = methods.find((m) => m.phoneNumber !== undefined)?.phoneNumber;
  const otherPhones = [...verifiedPhones, ...listOf(record.unverified_phone_numbers)]
    .map((p) => phoneNumberOf(p) ?? p)
    .filter((p) => p !== primaryPhone);
  if (otherPhones.length > 0) metadata.other_phone_numbers = [...new Set(otherPhones)];
  withMetadata(user, metadata);
  const totp = text(record.totp_secret);
  const factorsLeftBehind: string[] = [];
  if (totp !== undefined) {
    const secretKey = canonicalBase32(totp);
    if (secretKey === undefined)
      factorsLeftBehind.push(
        'totp_secret is not base32 (or longer than the core takes): the TOTP device cannot be carried',
      );
    else user.totpDevices = [totpDevice(secretKey, CLERK_TOTP_PERIOD, 1, 'clerk')];
  }
  return converted(inPayloadOrder(user), id, factorsLeftBehind);
}
