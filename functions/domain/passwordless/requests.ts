/**
 * The inputs of the passwordless endpoints, read with the reference's rules, order and messages
 * (docs/passwordless.md): `Field name '<f>' is invalid in JSON input` for a field of the wrong
 * type, then each endpoint's "exactly one of" rule. Emails are trimmed and lower-cased, phone
 * numbers normalised as everywhere in the core (functions/contract/phone-numbers.ts).
 */
import { normaliseEmail } from '#functions/contract/emails.js';
import { normalisePhoneNumber } from '#functions/contract/phone-numbers.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { checkIdLength, ID_LIMITS } from '#functions/shared/id-limits.js';
import { has, optionalString, requiredString } from '#functions/shared/input.js';

type Body = Readonly<Record<string, unknown>>;
type Query = Readonly<Record<string, string | undefined>>;

/** A new device for an email or a phone number, or a new code for a device (`deviceId`). */
export type CreateCodeInput =
  | {
      readonly email: string;
      readonly phoneNumber?: undefined;
      readonly deviceId?: undefined;
      readonly userInputCode?: string;
    }
  | {
      readonly phoneNumber: string;
      readonly email?: undefined;
      readonly deviceId?: undefined;
      readonly userInputCode?: string;
    }
  | {
      readonly deviceId: string;
      readonly email?: undefined;
      readonly phoneNumber?: undefined;
      readonly userInputCode?: string;
    };

/** A code to check or consume: a user input code with its device, or a link code. */
export type CodeInput =
  | { readonly preAuthSessionId: string; readonly deviceId: string; readonly userInputCode: string }
  | { readonly preAuthSessionId: string; readonly linkCode: string };

export type RemoveCodeInput = { readonly codeId: string } | { readonly preAuthSessionId: string };
export type RemoveCodesInput = { readonly email: string } | { readonly phoneNumber: string };
export type ListCodesInput =
  | { readonly email: string }
  | { readonly phoneNumber: string }
  | { readonly deviceId: string }
  | { readonly preAuthSessionId: string };

/**
 * Whether an email or phone number can be stored at all (DynamoDB keys hold it): one longer than
 * the core accepts at sign-up belongs to no device, so a lookup of it finds nothing.
 */
export function storableContact(contact: { email?: string | undefined; phoneNumber?: string | undefined }): boolean {
  // Lower-casing can at most double an email's length (`İ` becomes two characters).
  if (contact.email !== undefined) return contact.email.length <= 2 * ID_LIMITS.email;
  return contact.phoneNumber === undefined || contact.phoneNumber.length <= ID_LIMITS.phoneNumber;
}

/** `POST /<t>/recipe/signinup/code`. */
export function parseCreateCode(body: Body): CreateCodeInput {
  // The reference reads `email` whenever the key is present (JSON null included: not a string).
  const rawEmail = has(body, 'email') ? requiredString(body, 'email') : undefined;
  const rawPhone = optionalString(body, 'phoneNumber');
  const deviceId = optionalString(body, 'deviceId');
  if ([rawEmail, rawPhone, deviceId].filter((v) => v !== undefined).length !== 1) {
    throw new BadRequestError('Please provide exactly one of email, phoneNumber or deviceId');
  }
  const userInputCode = optionalString(body, 'userInputCode');
  if (userInputCode === '') throw new BadRequestError('userInputCode cannot be an empty string.');
  const code = userInputCode !== undefined ? { userInputCode } : {};
  if (rawEmail !== undefined) {
    checkIdLength('email', rawEmail.trim());
    return { email: normaliseEmail(rawEmail), ...code };
  }
  if (rawPhone !== undefined) {
    checkIdLength('phoneNumber', rawPhone.trim());
    return { phoneNumber: normalisePhoneNumber(rawPhone), ...code };
  }
  return { deviceId: deviceId as string, ...code };
}

const ONE_CODE = 'Please provide exactly one of linkCode or deviceId+userInputCode';

/** `POST /<t>/recipe/signinup/code/consume` and `…/code/check`. */
export function parseCodeInput(body: Body): CodeInput {
  const preAuthSessionId = requiredString(body, 'preAuthSessionId');
  if (has(body, 'linkCode')) {
    if (has(body, 'userInputCode') || has(body, 'deviceId')) throw new BadRequestError(ONE_CODE);
    return { preAuthSessionId, linkCode: requiredString(body, 'linkCode') };
  }
  if (has(body, 'userInputCode') && has(body, 'deviceId')) {
    return {
      preAuthSessionId,
      deviceId: requiredString(body, 'deviceId'),
      userInputCode: requiredString(body, 'userInputCode'),
    };
  }
  throw new BadRequestError(ONE_CODE);
}

/**
 * `POST /<t>/recipe/signinup/code/remove`: `codeId` (required before CDI 5.0) or, from CDI 5.0,
 * `preAuthSessionId` instead.
 */
export function parseRemoveCode(body: Body, cdiAtLeast5: boolean): RemoveCodeInput {
  const codeId = cdiAtLeast5 ? optionalString(body, 'codeId') : requiredString(body, 'codeId');
  const preAuthSessionId = cdiAtLeast5 ? optionalString(body, 'preAuthSessionId') : undefined;
  if (codeId === undefined && preAuthSessionId === undefined) {
    throw new BadRequestError("Please provide either 'codeId' or 'preAuthSessionId'");
  }
  if (codeId !== undefined && preAuthSessionId !== undefined) {
    throw new BadRequestError("Please provide only one of 'codeId' or 'preAuthSessionId'");
  }
  return codeId !== undefined ? { codeId } : { preAuthSessionId: preAuthSessionId as string };
}

/** `POST /<t>/recipe/signinup/codes/remove`: exactly one of `email`, `phoneNumber`. */
export function parseRemoveCodes(body: Body): RemoveCodesInput {
  const email = optionalString(body, 'email');
  const phoneNumber = optionalString(body, 'phoneNumber');
  if ((email === undefined) === (phoneNumber === undefined)) {
    throw new BadRequestError('Please provide exactly one of email or phoneNumber');
  }
  return email !== undefined
    ? { email: normaliseEmail(email) }
    : { phoneNumber: normalisePhoneNumber(phoneNumber as string) };
}

/** `GET /<t>/recipe/signinup/codes`: exactly one of `email`, `phoneNumber`, `deviceId`, `preAuthSessionId`. */
export function parseListCodes(query: Query): ListCodesInput {
  const { email, phoneNumber, deviceId, preAuthSessionId } = query;
  if ([email, phoneNumber, deviceId, preAuthSessionId].filter((v) => v !== undefined).length !== 1) {
    throw new BadRequestError('Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId');
  }
  if (email !== undefined) return { email: normaliseEmail(email) };
  if (phoneNumber !== undefined) return { phoneNumber: normalisePhoneNumber(phoneNumber) };
  if (deviceId !== undefined) return { deviceId };
  return { preAuthSessionId: preAuthSessionId as string };
}
