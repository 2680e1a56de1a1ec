/**
 * The credential fields of a staged user, taken out of the row's clear JSON so they can be sealed
 * apart: each login method's `plainTextPassword` and `passwordHash`, each TOTP device's
 * `secretKey`, by position. What stays in clear is what the status API may show.
 */
import type { ClearImportUser } from '#functions/domain/bulk-import/staging-ports.js';
import type { ImportTotpDevice, ImportUser } from '#functions/domain/import/types.js';

/** By login method / TOTP device index (as a string, the JSON key). */
export interface CredentialFields {
  /** plainTextPassword */
  p?: Record<string, string>;
  /** passwordHash */
  h?: Record<string, string>;
  /** TOTP secretKey */
  t?: Record<string, string>;
}

type Loose = Record<string, unknown>;

/** The user without its credential fields, and those fields (undefined when it has none). */
export function splitCredentials(user: ImportUser | ClearImportUser): {
  user: ClearImportUser;
  credentials: CredentialFields | undefined;
} {
  const fields: CredentialFields = {};
  const put = (kind: keyof CredentialFields, index: number, value: unknown) => {
    if (typeof value !== 'string') return;
    fields[kind] ??= {};
    (fields[kind] as Record<string, string>)[String(index)] = value;
  };
  const loginMethods = user.loginMethods.map((lm, i) => {
    const { plainTextPassword, passwordHash, ...rest } = lm as unknown as Loose;
    put('p', i, plainTextPassword);
    put('h', i, passwordHash);
    return rest;
  });
  const totpDevices = user.totpDevices.map((device, i) => {
    const { secretKey, ...rest } = device as unknown as Loose;
    put('t', i, secretKey);
    return rest;
  });
  const stripped = { ...user, totpDevices, loginMethods } as unknown as ClearImportUser;
  return { user: stripped, credentials: Object.keys(fields).length > 0 ? fields : undefined };
}

/** The user with its credential fields put back. */
export function joinCredentials(user: ClearImportUser, credentials: CredentialFields): ImportUser {
  const at = (kind: keyof CredentialFields, index: number) => credentials[kind]?.[String(index)];
  return {
    ...user,
    totpDevices: user.totpDevices.map((device, i) => {
      const secretKey = at('t', i);
      // Validation requires a secret of every device: one without is passed on as stored.
      return (secretKey === undefined ? device : { ...device, secretKey }) as ImportTotpDevice;
    }),
    loginMethods: user.loginMethods.map((lm, i) => {
      const plainTextPassword = at('p', i);
      const passwordHash = at('h', i);
      return {
        ...lm,
        ...(passwordHash === undefined ? {} : { passwordHash }),
        ...(plainTextPassword === undefined ? {} : { plainTextPassword }),
      } as typeof lm;
    }),
  };
}
