/**
 * Firebase: `firebase auth:export` as JSON (`{"users":[…]}`) or CSV (no header, fixed columns), with the
 * project's password-hash parameters (`--hash-config`) as the console shows them.
 *
 * Second factors: `firebase auth:export` leaves them out, but an export made with the Identity
 * Toolkit's `accounts:batchGet` / `downloadAccount` keeps `mfaInfo` (`[{mfaEnrollmentId, displayName,
 * phoneInfo | totpInfo | emailInfo, enrolledAt}]`) and the Admin SDK's `listUsers` JSON keeps
 * `multiFactor.enrolledFactors` (`[{uid, displayName, factorId, phoneNumber, enrollmentTime}]`).
 * Neither holds a TOTP secret, and the core has no SMS second factor, so each factor is reported.
 */
import { readFile } from 'node:fs/promises';
import type { WireImportUser, WireLoginMethod } from '../contract.js';
import { isJsonObject, type JsonObject } from '../contract.js';
import { usageError } from '../errors.js';
import { type ByteCounter, fileDigest, recordsOf } from '../input.js';
import { maskPhone } from '../personal.js';
import {
  type ConvertOptions,
  emailOf,
  finishLoginMethods,
  idText,
  jsonObject,
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
import { fileSetting, hasKey, type SourceDefinition } from './source.js';
import { quotedLabel } from './totp.js';

export const firebase: SourceDefinition = {
  name: 'firebase',
  pendsWithoutHash: true,
  flags: [
    { flags: '--hash-config <file>', description: "the project's password hash parameters (console text or JSON)" },
  ],
  layout: (detected) => (detected === 'csv' ? 'csv' : detected === 'json-array' ? 'json-array' : 'json-users'),
  checkFirst: (value, layout) =>
    layout === 'csv'
      ? Array.isArray(value) && value.length >= 26
        ? undefined
        : 'fewer columns than firebase auth:export writes'
      : hasKey(value, 'localId')
        ? undefined
        : 'no "localId": not a Firebase auth:export',
  async open(exportPath, layout, settings) {
    const path = fileSetting(settings, 'hashConfig');
    if (!path) {
      throw usageError(
        "--from firebase needs --hash-config <file>: the project's password hash parameters (Authentication → Users → ⋮ → Password hash parameters)",
      );
    }
    let content: string;
    try {
      content = await readFile(path, 'utf8');
    } catch {
      throw usageError(`cannot read the hash config ${path}`);
    }
    let hashConfig: FirebaseHashConfig;
    try {
      hashConfig = parseFirebaseHashConfig(content);
    } catch (error) {
      throw usageError(`--hash-config ${path}: ${(error as Error).message}`);
    }
    // `firebase auth:export --format=csv` writes no header: rows are read as arrays of cells.
    const csv = layout === 'csv';
    return {
      ...(csv ? { records: (counter?: ByteCounter) => recordsOf(exportPath, 'csv', false, counter) } : {}),
      convert: (value) =>
        convertFirebase(csv && Array.isArray(value) ? firebaseCsvRowToRecord(value as string[]) : value, {
          ...settings,
          hashConfig,
        }),
      inputDigests: [await fileDigest(path)],
      notes: [`hash parameters: rounds ${hashConfig.rounds}, mem_cost ${hashConfig.memCost}`],
      secrets: [hashConfig.signerKey, hashConfig.saltSeparator],
      appConfig: {
        key: 'firebase_password_hashing_signer_key',
        name: 'the signer key',
        value: hashConfig.signerKey,
        from: 'the hash config',
        onMismatch: 'Use the hash config of the Firebase project the export comes from, or migrate into another app.',
      },
    };
  },
};

export interface FirebaseHashConfig {
  readonly signerKey: string;
  readonly saltSeparator: string;
  readonly rounds: number;
  readonly memCost: number;
}

/** Firebase provider ids that are third-party logins → SuperTokens thirdPartyIds. */
const FIREBASE_PROVIDERS: Readonly<Record<string, string>> = {
  'google.com': 'google',
  'facebook.com': 'facebook',
  'github.com': 'github',
  'twitter.com': 'twitter',
  'apple.com': 'apple',
};

/** Entries of providerUserInfo that are not third-party logins (the password and the phone number). */
const NOT_THIRD_PARTY = new Set(['password', 'phone', 'emailLink', 'anonymous']);

export interface FirebaseOptions extends ConvertOptions {
  readonly hashConfig: FirebaseHashConfig;
}

const BASE64 = /^[A-Za-z0-9+/=_-]+$/;

/**
 * Parses the hash parameters: the console's text block as pasted (`hash_config { algorithm: SCRYPT,
 * base64_signer_key: …, base64_salt_separator: …, rounds: 8, mem_cost: 14, }`) or JSON with those keys.
 * Throws with a message naming the missing or malformed key (never its value).
 */
export function parseFirebaseHashConfig(content: string): FirebaseHashConfig {
  const values = new Map<string, string>();
  const trimmed = content.trim();
  let parsedJson: unknown;
  if (trimmed.startsWith('{')) {
    try {
      parsedJson = JSON.parse(trimmed);
    } catch {
      parsedJson = undefined;
    }
  }
  if (isJsonObject(parsedJson)) {
    const source = isJsonObject(parsedJson.hash_config) ? parsedJson.hash_config : parsedJson;
    for (const [key, value] of Object.entries(source)) {
      if (typeof value === 'string' || typeof value === 'number') values.set(key.toLowerCase(), String(value).trim());
    }
  } else {
    for (const match of trimmed.matchAll(/([A-Za-z_0-9]+)\s*[:=]\s*("?)([^,\n"}]*)\2\s*,?/g)) {
      values.set((match[1] as string).toLowerCase(), (match[3] as string).trim());
    }
  }
  const algorithm = values.get('algorithm');
  if (algorithm !== undefined && algorithm.toUpperCase() !== 'SCRYPT') {
    // Only a name is quoted: a block pasted without its line breaks reads the signer key into this value.
    const named = /^[A-Za-z0-9_-]{1,32}$/.test(algorithm) ? algorithm : 'not SCRYPT';
    throw new Error(`the hash config's algorithm is ${named}; only Firebase's SCRYPT is supported`);
  }
  const signerKey = values.get('base64_signer_key');
  const saltSeparator = values.get('base64_salt_separator');
  if (!signerKey || !BASE64.test(signerKey)) throw new Error('the hash config has no valid base64_signer_key');
  if (saltSeparator === undefined || (saltSeparator !== '' && !BASE64.test(saltSeparator))) {
    throw new Error('the hash config has no valid base64_salt_separator');
  }
  const rounds = Number(values.get('rounds'));
  const memCost = Number(values.get('mem_cost'));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('the hash config has no valid rounds');
  if (!Number.isInteger(memCost) || memCost < 1) throw new Error('the hash config has no valid mem_cost');
  return { signerKey, saltSeparator, rounds, memCost };
}

/**
 * Column order of `firebase auth:export --format=csv` (no header): uid, email, email verified,
 * password hash, salt, display name, photo URL, then rawId/email/display name/photo URL for Google
 * (7–10), Facebook (11–14), Twitter (15–18) and GitHub (19–22), then created at, last signed in at,
 * phone number, disabled, custom attributes.
 */
const CSV_PROVIDER_COLUMNS: ReadonlyArray<readonly [string, number]> = [
  ['google.com', 7],
  ['facebook.com', 11],
  ['twitter.com', 15],
  ['github.com', 19],
];

/** One CSV row of the Firebase export → the same object the JSON export holds for that user. */
export function firebaseCsvRowToRecord(row: readonly string[]): JsonObject {
  const cell = (i: number) => (row[i] ?? '').trim();
  const providerUserInfo: JsonObject[] = [];
  for (const [providerId, start] of CSV_PROVIDER_COLUMNS) {
    const rawId = cell(start);
    if (rawId !== '') providerUserInfo.push({ providerId, rawId, email: cell(start + 1) || undefined });
  }
  return {
    localId: cell(0),
    email: cell(1),
    emailVerified: truthy(cell(2)),
    passwordHash: cell(3),
    salt: cell(4),
    displayName: cell(5),
    providerUserInfo,
    createdAt: cell(23),
    phoneNumber: cell(25),
    disabled: truthy(cell(26)),
    customAttributes: cell(27),
  };
}

/** `$f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<salt separator>` (docs/password-hashes.md). */
export function firebaseStoredHash(hash: string, salt: string, config: FirebaseHashConfig): string {
  return `$f_scrypt$${hash}$${salt}$m=${config.memCost}$r=${config.rounds}$s=${config.saltSeparator}`;
}

/** What kind of second factor an `mfaInfo` / `enrolledFactors` entry is. */
function factorKind(entry: JsonObject): string {
  const factorId = text(entry.factorId);
  if (factorId !== undefined) return factorId.slice(0, 20);
  if (entry.phoneInfo !== undefined) return 'phone';
  if (entry.totpInfo !== undefined) return 'totp';
  if (entry.emailInfo !== undefined) return 'email';
  return 'unknown';
}

/** A message per second factor of the user (none can be carried: the export holds no TOTP secret). */
function firebaseFactorsLeftBehind(record: JsonObject): string[] {
  const out: string[] = [];
  const lists: Array<[string, unknown]> = [['mfaInfo', record.mfaInfo]];
  if (isJsonObject(record.multiFactor)) lists.push(['multiFactor.enrolledFactors', record.multiFactor.enrolledFactors]);
  for (const [field, list] of lists) {
    if (!Array.isArray(list)) continue;
    for (const [i, entry] of list.entries()) {
      if (!isJsonObject(entry)) continue;
      const kind = factorKind(entry);
      const why =
        kind === 'totp'
          ? 'Firebase exports no TOTP secret'
          : kind === 'phone'
            ? 'the core has no SMS second factor'
            : 'the core imports TOTP devices only';
      out.push(
        `the ${kind} second factor ${field}[${i}]${quotedLabel(text(entry.displayName))} cannot be carried (${why}); the user enrols a second factor again`,
      );
    }
  }
  return out;
}

/** One user of the Firebase export → the import payload, or the reasons it cannot be imported. */
export function convertFirebase(record: unknown, options: FirebaseOptions): Conversion {
  if (!isJsonObject(record)) return rejected(undefined, 'the user is not a JSON object');
  const localId = idText(record.localId);
  if (localId === undefined) return rejected(undefined, 'localId is missing');
  const email = emailOf(record.email);
  const verified = truthy(record.emailVerified);
  const time = timeMs(record.createdAt);
  const methods: WireLoginMethod[] = [];
  const problems: string[] = [];
  const base = () => methodAt(time);

  const hash = text(record.passwordHash);
  const salt = text(record.salt);
  if (hash !== undefined) {
    if (salt === undefined) problems.push('passwordHash has no salt');
    else if (!BASE64.test(hash) || !BASE64.test(salt)) problems.push('passwordHash or salt is not Base64');
    else if (email === undefined) problems.push('the user has a password but no email');
    else {
      methods.push({
        ...base(),
        email,
        isVerified: verified,
        passwordHash: firebaseStoredHash(hash, salt, options.hashConfig),
        hashingAlgorithm: 'FIREBASE_SCRYPT',
      });
    }
  }

  const infos = record.providerUserInfo;
  if (infos !== undefined && infos !== null && !Array.isArray(infos)) problems.push('providerUserInfo is not an array');
  for (const [i, info] of (Array.isArray(infos) ? infos : []).entries()) {
    if (!isJsonObject(info)) {
      problems.push(`providerUserInfo[${i}] is not an object`);
      continue;
    }
    const providerId = text(info.providerId);
    if (providerId === undefined || NOT_THIRD_PARTY.has(providerId)) continue;
    const rawId = idText(info.rawId);
    if (rawId === undefined) {
      problems.push(`providerUserInfo[${i}] (${providerId}) has no rawId`);
      continue;
    }
    const infoEmail = emailOf(info.email) ?? email;
    if (infoEmail === undefined) {
      problems.push(`the ${providerId} login has no email (the core needs one for a third-party login)`);
      continue;
    }
    methods.push({
      ...base(),
      recipeId: 'thirdparty',
      email: infoEmail,
      isVerified: infoEmail === email ? verified : undefined,
      thirdPartyId: thirdPartyIdFor(providerId, FIREBASE_PROVIDERS, options),
      thirdPartyUserId: rawId,
    });
  }

  const rawPhone = text(record.phoneNumber);
  if (rawPhone !== undefined) {
    const phone = phoneNumberOf(rawPhone);
    if (phone === undefined) problems.push(`phoneNumber ${maskPhone(rawPhone)} is not a valid international number`);
    else methods.push({ ...base(), recipeId: 'passwordless', phoneNumber: phone });
  }

  // No hash for a user who signs in with a password (`password` listed; a CSV row lists no such
  // provider, so there: an email and no other login): pending the hook with --password-hook.
  const listed = Array.isArray(infos) ? infos.filter(isJsonObject).map((info) => text(info.providerId)) : [];
  const signsInWithPassword =
    hash === undefined &&
    email !== undefined &&
    (listed.includes('password') || (listed.length === 0 && methods.length === 0));
  if (signsInWithPassword && options.passwordHook) methods.unshift(pendingPasswordMethod(time, email, verified));

  if (problems.length > 0) return rejected(localId, ...problems);
  if (methods.length === 0) {
    return rejected(
      localId,
      signsInWithPassword
        ? `the export carries no password hash for the user (export with an account allowed to read hashes), or ${PASSWORD_HOOK_HINT}`
        : 'the user has no password, third-party login or phone number (an anonymous or email-link user)',
    );
  }

  const user: WireImportUser = { externalUserId: localId, loginMethods: finishLoginMethods(methods, options) };
  const metadata: Record<string, unknown> = {};
  const displayName = text(record.displayName);
  if (displayName !== undefined) metadata.displayName = displayName;
  const claims = jsonObject(record.customAttributes);
  if (claims !== undefined && Object.keys(claims).length > 0) metadata.customAttributes = claims;
  if (truthy(record.disabled)) metadata.disabled = true;
  withMetadata(user, metadata);
  return converted(user, localId, firebaseFactorsLeftBehind(record));
}
