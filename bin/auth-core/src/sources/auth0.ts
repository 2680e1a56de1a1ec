/**
 * Auth0: the bulk user export (NDJSON, one user per line) joined with the password-hash export
 * Auth0 support provides (`--hashes`).
 *
 * Second factors: neither export holds an MFA secret (Guardian push, OTP, SMS, WebAuthn enrolments
 * stay in Auth0). When the export includes the `multifactor` field (the providers the user is
 * enrolled with), each is reported: the user goes in without it.
 */
import type { WireImportUser, WireLoginMethod } from '../contract.js';
import { isJsonObject, type JsonObject } from '../contract.js';
import { usageError } from '../errors.js';
import { fileDigest } from '../input.js';
import { loadAuth0Hashes } from './auth0-hashes.js';
import {
  type ConvertOptions,
  emailOf,
  finishLoginMethods,
  idText,
  isBcrypt,
  methodAt,
  PASSWORD_HOOK_HINT,
  pendingPasswordMethod,
  phoneNumberOf,
  text,
  thirdPartyIdFor,
  timeMs,
  withMetadata,
} from './common.js';
import { type Conversion, converted, rejected } from './conversion.js';
import { fileSetting, hasKey, type SourceDefinition } from './source.js';

export const auth0: SourceDefinition = {
  name: 'auth0',
  pendsWithoutHash: true,
  flags: [{ flags: '--hashes <file>', description: 'the password-hash export from Auth0 support (NDJSON)' }],
  layout: (detected) => (detected === 'json-array' || detected === 'json-users' ? detected : 'ndjson'),
  checkFirst: (value) => (hasKey(value, 'user_id') ? undefined : 'no "user_id" field: not an Auth0 user export'),
  async open(_exportPath, _layout, settings) {
    const path = fileSetting(settings, 'hashes');
    const hashes = path
      ? await loadAuth0Hashes(path).catch(() => {
          throw usageError(`cannot read the password-hash export ${path}`);
        })
      : undefined;
    return {
      convert: (value) =>
        convertAuth0(value, { ...settings, hashFor: (id) => hashes?.hashFor(id), hashesGiven: hashes !== undefined }),
      inputDigests: path ? [await fileDigest(path)] : [],
      notes: hashes
        ? [`${hashes.count} password hashes in ${path}`]
        : [
            settings.passwordHook === true
              ? 'no password-hash export given (--hashes): database users go in pending the password-migration hook (--password-hook)'
              : 'no password-hash export given (--hashes): database users cannot be imported (give --hashes, or --password-hook to import them pending the password-migration hook)',
          ],
      close: () => hashes?.close(),
    };
  },
};

/** Auth0 connection/provider names → SuperTokens thirdPartyIds; others keep Auth0's name. */
const AUTH0_PROVIDERS: Readonly<Record<string, string>> = {
  'google-oauth2': 'google',
  // Google Workspace (an enterprise connection): the user id is Google's `sub`, as for google-oauth2.
  'google-apps': 'google-workspaces',
  github: 'github',
  facebook: 'facebook',
  apple: 'apple',
  linkedin: 'linkedin',
  twitter: 'twitter',
};

export interface Auth0Options extends ConvertOptions {
  /** The bcrypt hash of a database user (`auth0|<id>`), from the hash export; undefined when absent. */
  readonly hashFor: (userId: string) => string | undefined;
  /** Whether a hash export was given at all (changes the message for a database user without a hash). */
  readonly hashesGiven: boolean;
}

interface Identity {
  readonly provider: string;
  readonly userId: string;
  readonly isSocial: boolean;
  readonly profileEmail: string | undefined;
}

function identitiesOf(record: JsonObject, userId: string): Identity[] | string {
  const raw = record.identities;
  if (raw === undefined || raw === null) {
    // An export without the identities field: the user id itself says `<provider>|<id>`.
    const bar = userId.indexOf('|');
    if (bar <= 0) return `user_id ${userId} has no identities and no "<provider>|<id>" form`;
    const provider = userId.slice(0, bar);
    return [
      {
        provider,
        userId: userId.slice(bar + 1),
        isSocial: !['auth0', 'email', 'sms'].includes(provider),
        profileEmail: undefined,
      },
    ];
  }
  if (!Array.isArray(raw)) return 'identities is not an array';
  const out: Identity[] = [];
  for (const [i, entry] of raw.entries()) {
    if (!isJsonObject(entry)) return `identities[${i}] is not an object`;
    const provider = text(entry.provider);
    const id = idText(entry.user_id);
    if (provider === undefined || id === undefined) return `identities[${i}] has no provider or user_id`;
    const profile = isJsonObject(entry.profileData) ? entry.profileData : undefined;
    out.push({
      provider,
      // Some exports write the full `<provider>|<id>` here.
      userId: id.startsWith(`${provider}|`) ? id.slice(provider.length + 1) : id,
      isSocial: entry.isSocial === true,
      profileEmail: profile ? emailOf(profile.email) : undefined,
    });
  }
  if (out.length === 0) return 'identities is empty';
  return out;
}

/** One line of the Auth0 bulk user export → the import payload, or the reasons it cannot be imported. */
export function convertAuth0(record: unknown, options: Auth0Options): Conversion {
  if (!isJsonObject(record)) return rejected(undefined, 'the line is not a JSON object');
  const userId = idText(record.user_id);
  if (userId === undefined) return rejected(undefined, 'user_id is missing');
  const identities = identitiesOf(record, userId);
  if (typeof identities === 'string') return rejected(userId, identities);

  const email = emailOf(record.email);
  const emailVerified = record.email_verified === true;
  const time = timeMs(record.created_at);
  const methods: WireLoginMethod[] = [];
  const problems: string[] = [];
  let databaseWithoutHash: string | undefined;

  for (const identity of identities) {
    const full = `${identity.provider}|${identity.userId}`;
    const base = methodAt(time);
    if (identity.provider === 'auth0' && !identity.isSocial) {
      const hash = options.hashFor(full);
      const identityEmail = identity.profileEmail ?? email;
      if (hash === undefined && !options.passwordHook) {
        databaseWithoutHash = full;
        continue;
      }
      if (identityEmail === undefined) {
        problems.push(`database identity ${full} has no email`);
        continue;
      }
      if (hash === undefined) {
        methods.push(pendingPasswordMethod(time, identityEmail, emailVerified));
        continue;
      }
      if (!isBcrypt(hash)) {
        problems.push(`database identity ${full} has a password hash that is not bcrypt`);
        continue;
      }
      methods.push({
        ...base,
        recipeId: 'emailpassword',
        email: identityEmail,
        isVerified: emailVerified,
        passwordHash: hash,
        hashingAlgorithm: 'BCRYPT',
      });
    } else if (identity.provider === 'email' && !identity.isSocial) {
      const identityEmail = identity.profileEmail ?? email;
      if (identityEmail === undefined) problems.push(`passwordless identity ${full} has no email`);
      else methods.push({ ...base, recipeId: 'passwordless', email: identityEmail });
    } else if (identity.provider === 'sms' && !identity.isSocial) {
      const phone = phoneNumberOf(record.phone_number);
      if (phone === undefined)
        problems.push(`passwordless identity ${full} has no valid phone_number (E.164 expected)`);
      else methods.push({ ...base, recipeId: 'passwordless', phoneNumber: phone });
    } else {
      const identityEmail = identity.profileEmail ?? email;
      if (identityEmail === undefined) {
        problems.push(`third-party identity ${full} has no email (the core needs one for a third-party login)`);
        continue;
      }
      methods.push({
        ...base,
        recipeId: 'thirdparty',
        email: identityEmail,
        isVerified: emailVerified,
        thirdPartyId: thirdPartyIdFor(identity.provider, AUTH0_PROVIDERS, options),
        thirdPartyUserId: identity.userId,
      });
    }
  }

  if (problems.length > 0) return rejected(userId, ...problems);
  if (methods.length === 0) {
    return rejected(
      userId,
      options.hashesGiven
        ? `database user ${databaseWithoutHash ?? userId} has no password hash in the hash export (--hashes) and no other identity; ${PASSWORD_HOOK_HINT}`
        : `database user ${databaseWithoutHash ?? userId} has no password hash: give the password-hash export with --hashes, or ${PASSWORD_HOOK_HINT}`,
    );
  }

  const user: WireImportUser = { externalUserId: userId, loginMethods: finishLoginMethods(methods, options) };
  const metadata: Record<string, unknown> = {};
  if (isJsonObject(record.user_metadata) && Object.keys(record.user_metadata).length > 0) {
    metadata.user_metadata = record.user_metadata;
  }
  if (isJsonObject(record.app_metadata) && Object.keys(record.app_metadata).length > 0) {
    metadata.app_metadata = record.app_metadata;
  }
  withMetadata(user, metadata);
  const multifactor = Array.isArray(record.multifactor) ? record.multifactor : [];
  const factors = multifactor.flatMap((provider) => {
    const name = text(provider);
    return name === undefined
      ? []
      : [
          `the Auth0 MFA enrolment "${name.slice(0, 40)}" cannot be carried (Auth0's exports hold no second-factor secret); the user enrols a second factor again`,
        ];
  });
  return converted(user, userId, factors);
}
