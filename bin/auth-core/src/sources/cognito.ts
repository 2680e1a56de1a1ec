/**
 * Amazon Cognito: the JSON `aws cognito-idp list-users --user-pool-id <pool>` prints
 * (`{"Users":[{"Username","Attributes":[{"Name","Value"}],"UserCreateDate","UserLastModifiedDate",
 * "Enabled","UserStatus","MFAOptions"?}]}`; the CLI follows the pages itself), the same users as a
 * JSON array or NDJSON (`jq -c '.Users[]'`), or a CSV with a header in the column set of the user
 * pool's CSV (`aws cognito-idp get-csv-header`: `cognito:username`, `name`, `given_name`,
 * `family_name`, …, `email`, `email_verified`, `phone_number`, `phone_number_verified`, `custom:…`,
 * `cognito:mfa_enabled`).
 *
 * Cognito never exports a password hash, so a user who signs in with a password goes in only pending
 * the app's password-migration hook (`--password-hook`); without it such a user is reported, not
 * staged. A federated user (`UserStatus` `EXTERNAL_PROVIDER`, its `identities` attribute) becomes a
 * third-party login. Second factors: Cognito exports no TOTP secret, and the core has no SMS second
 * factor, so `MFAOptions` and `cognito:mfa_enabled` are reported.
 */
import type { WireImportUser, WireLoginMethod } from '../contract.js';
import { isJsonObject, type JsonObject } from '../contract.js';
import { type ByteCounter, jsonArrayRecords, peek, recordsOf } from '../input.js';
import { maskPhone } from '../personal.js';
import {
  type ConvertOptions,
  emailOf,
  finishLoginMethods,
  idText,
  inPayloadOrder,
  methodAt,
  PASSWORD_HOOK_HINT,
  pendingPasswordMethod,
  phoneNumberOf,
  text,
  thirdPartyIdFor,
  timeMs,
  truthy,
  withMetadata,
} from './common.js';
import { type Conversion, converted, rejected } from './conversion.js';
import { hasKey, type SourceDefinition } from './source.js';

/** Cognito's built-in identity-provider names → SuperTokens thirdPartyIds; OIDC / SAML names are kept. */
const COGNITO_PROVIDERS: Readonly<Record<string, string>> = {
  Google: 'google',
  Facebook: 'facebook',
  SignInWithApple: 'apple',
  LoginWithAmazon: 'amazon',
};

/** Attributes the login methods are made of (the others go to the user's metadata). */
const LOGIN_ATTRIBUTES = new Set([
  'sub',
  'email',
  'email_verified',
  'phone_number',
  'phone_number_verified',
  'identities',
]);

/** The CSV's own columns, which are not user attributes. */
const CSV_USERNAME = 'cognito:username';
const CSV_MFA = 'cognito:mfa_enabled';

/** At most this many attributes per user are read (a user pool has at most 50 custom ones). */
const MAX_ATTRIBUTES = 200;

export const cognito: SourceDefinition = {
  name: 'cognito',
  flags: [],
  pendsWithoutHash: true,
  // `{"Users": [...]}` is read by `records` below; a JSON array and NDJSON as they are.
  layout: (detected) => (detected === 'json-users' ? 'ndjson' : detected),
  checkFirst: (value, layout) =>
    layout === 'csv'
      ? hasKey(value, CSV_USERNAME)
        ? undefined
        : `no "${CSV_USERNAME}" column: not a Cognito user CSV`
      : hasKey(value, 'Username')
        ? undefined
        : 'no "Username": not a user of aws cognito-idp list-users',
  async open(exportPath, layout, settings) {
    const document = layout === 'ndjson' && /^\s*\{\s*"Users"\s*:/.test(await peek(exportPath, 64));
    return {
      ...(document
        ? { records: (counter?: ByteCounter) => jsonArrayRecords(exportPath, 'Users', counter) }
        : layout === 'csv'
          ? { records: (counter?: ByteCounter) => recordsOf(exportPath, 'csv', true, counter) }
          : {}),
      convert: (value) =>
        convertCognito(layout === 'csv' && isJsonObject(value) ? cognitoCsvRowToUser(value) : value, settings),
      inputDigests: [],
      notes: [
        settings.passwordHook === true
          ? 'Cognito exports no password hash: password users go in pending the password-migration hook (--password-hook)'
          : 'Cognito exports no password hash: password users cannot be imported without --password-hook (their passwords are then checked by the old system at first sign-in)',
      ],
    };
  },
};

/** One row of the user-pool CSV → the shape list-users prints for that user. */
export function cognitoCsvRowToUser(row: JsonObject): JsonObject {
  const attributes: JsonObject[] = [];
  for (const [name, value] of Object.entries(row)) {
    if (name === CSV_USERNAME || name === CSV_MFA) continue;
    if (typeof value === 'string' && value.trim() !== '') attributes.push({ Name: name, Value: value });
  }
  return {
    Username: row[CSV_USERNAME],
    Attributes: attributes,
    ...(truthy(row[CSV_MFA]) ? { MFAOptions: [{ DeliveryMedium: 'SMS', AttributeName: 'phone_number' }] } : {}),
  };
}

/** The user's attributes by name (the first of a repeated name wins); a reason when they are malformed. */
function attributesOf(record: JsonObject): Map<string, string> | string {
  const raw = record.Attributes;
  const out = new Map<string, string>();
  if (raw === undefined || raw === null) return out;
  if (!Array.isArray(raw)) return 'Attributes is not an array';
  if (raw.length > MAX_ATTRIBUTES) return `Attributes has ${raw.length} entries (at most ${MAX_ATTRIBUTES} are read)`;
  for (const [i, entry] of raw.entries()) {
    if (!isJsonObject(entry) || typeof entry.Name !== 'string') return `Attributes[${i}] has no Name`;
    if (entry.Value !== undefined && entry.Value !== null && typeof entry.Value !== 'string')
      return `Attributes[${i}] (${entry.Name.slice(0, 40)}) has a Value that is not text`;
    if (!out.has(entry.Name) && typeof entry.Value === 'string') out.set(entry.Name, entry.Value);
  }
  return out;
}

/**
 * Cognito's dates: the CLI v2 prints ISO-8601 text, the CLI v1 and the API Unix seconds (a number
 * with a fraction); milliseconds are taken as they are.
 */
export function cognitoTimeMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < 1e11)
    return Math.round(value * 1000);
  return timeMs(value);
}

interface CognitoIdentity {
  readonly providerName: string;
  readonly userId: string;
}

/** The `identities` attribute (JSON text: `[{"userId","providerName","providerType",…}]`) of a federated user. */
function identitiesOf(raw: string | undefined): CognitoIdentity[] | string {
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'the identities attribute is not JSON';
  }
  if (!Array.isArray(parsed)) return 'the identities attribute is not a JSON array';
  const out: CognitoIdentity[] = [];
  for (const [i, entry] of parsed.entries()) {
    const providerName = isJsonObject(entry) ? text(entry.providerName) : undefined;
    const userId = isJsonObject(entry) ? idText(entry.userId) : undefined;
    if (providerName === undefined || userId === undefined) return `identities[${i}] has no providerName or userId`;
    out.push({ providerName, userId });
  }
  return out;
}

/** One user of a Cognito export → the import payload, or the reasons it cannot be imported. */
export function convertCognito(record: unknown, options: ConvertOptions): Conversion {
  if (!isJsonObject(record)) return rejected(undefined, 'the user is not a JSON object');
  const username = idText(record.Username);
  const attributes = attributesOf(record);
  const sub = typeof attributes === 'string' ? undefined : text(attributes.get('sub'));
  // The user's id in the core: `sub`, the id Cognito's tokens carry; the CSV has none: the user name.
  const id = sub ?? username;
  if (id === undefined) return rejected(undefined, 'Username is missing');
  if (typeof attributes === 'string') return rejected(id, attributes);
  const identities = identitiesOf(attributes.get('identities'));
  if (typeof identities === 'string') return rejected(id, identities);

  const email = emailOf(attributes.get('email'));
  const emailVerified = truthy(attributes.get('email_verified'));
  const time = cognitoTimeMs(record.UserCreateDate);
  const status = text(record.UserStatus)?.toUpperCase();
  const methods: WireLoginMethod[] = [];
  const problems: string[] = [];

  for (const identity of identities) {
    if (email === undefined) {
      problems.push(
        `the ${identity.providerName.slice(0, 40)} identity has no email (the core needs one for a third-party login)`,
      );
      continue;
    }
    methods.push({
      ...methodAt(time),
      recipeId: 'thirdparty',
      email,
      isVerified: emailVerified,
      thirdPartyId: thirdPartyIdFor(identity.providerName, COGNITO_PROVIDERS, options),
      thirdPartyUserId: identity.userId,
    });
  }

  // Every user but a federated one signs in with a password Cognito keeps.
  const passwordUser = status !== 'EXTERNAL_PROVIDER' && identities.length === 0;
  if (passwordUser && email !== undefined && options.passwordHook) {
    methods.push(pendingPasswordMethod(time, email, emailVerified));
  }

  const rawPhone = text(attributes.get('phone_number'));
  let phone: string | undefined;
  if (rawPhone !== undefined) {
    phone = phoneNumberOf(rawPhone);
    if (phone === undefined) problems.push(`phone_number ${maskPhone(rawPhone)} is not a valid international number`);
    // A verified number is a login (passwordless), as for the other sources; an unverified one stays in metadata.
    else if (truthy(attributes.get('phone_number_verified'))) {
      methods.push({ ...methodAt(time), recipeId: 'passwordless', phoneNumber: phone });
    }
  }

  if (problems.length > 0) return rejected(id, ...problems);
  const passwordMissing = passwordUser && !options.passwordHook;
  if (methods.length === 0 || (passwordMissing && email !== undefined)) {
    return rejected(
      id,
      passwordUser
        ? email === undefined
          ? 'the user signs in with a password but has no email address (the core signs password users in by email)'
          : `Cognito exports no password hash: ${PASSWORD_HOOK_HINT}`
        : status === 'EXTERNAL_PROVIDER' && identities.length === 0
          ? 'the federated user has no identities attribute (its identity provider and id are not in the export)'
          : 'the user has no email address or verified phone number',
    );
  }

  const user: WireImportUser = { externalUserId: id, loginMethods: finishLoginMethods(methods, options) };
  const metadata: JsonObject = {};
  if (username !== undefined && username !== id) metadata.username = username;
  const kept: JsonObject = {};
  for (const [name, value] of attributes) {
    if (!LOGIN_ATTRIBUTES.has(name) && value.trim() !== '') kept[name] = value;
  }
  if (rawPhone !== undefined && phone !== undefined && !methods.some((m) => m.phoneNumber === phone)) {
    kept.phone_number = phone;
  }
  if (Object.keys(kept).length > 0) metadata.attributes = kept;
  if (record.Enabled === false) metadata.disabled = true;
  if (status !== undefined && status !== 'CONFIRMED' && status !== 'EXTERNAL_PROVIDER')
    metadata.userStatus = status.slice(0, 40);
  withMetadata(user, metadata);
  const factors =
    Array.isArray(record.MFAOptions) && record.MFAOptions.length > 0
      ? [
          "Cognito's SMS second factor cannot be carried (the core has no SMS second factor, and Cognito exports no TOTP secret); the user enrols a second factor again",
        ]
      : [];
  return converted(inPayloadOrder(user), id, factors);
}
