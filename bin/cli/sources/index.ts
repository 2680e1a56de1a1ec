/**
 * The sources the command reads, each as: how its records stream out of the export, and the
 * converter (a pure function of the record) with its side files and settings loaded.
 */
import { readFile } from 'node:fs/promises';
import { usageError } from '../errors.js';
import { type ByteCounter, detectLayout, fileDigest, type Layout, recordsOf, type SourceRecord } from '../input.js';
import type { Conversion } from '../payload.js';
import { convertAuth0 } from './auth0.js';
import { loadAuth0Hashes } from './auth0-hashes.js';
import { convertClerk } from './clerk.js';
import type { ConvertOptions } from './common.js';
import { convertDjango } from './django.js';
import {
  convertFirebase,
  type FirebaseHashConfig,
  firebaseCsvRowToRecord,
  parseFirebaseHashConfig,
} from './firebase.js';
import { convertKeycloak } from './keycloak.js';
import {
  convertSupabase,
  type SupabaseFactor,
  type SupabaseIdentity,
  supabaseFactor,
  supabaseIdentity,
} from './supabase.js';
import { convertSupertokens } from './supertokens.js';
import { convertWordpress } from './wordpress.js';

export const SOURCES = [
  'supertokens',
  'auth0',
  'firebase',
  'supabase',
  'clerk',
  'keycloak',
  'django',
  'wordpress',
] as const;
export type SourceName = (typeof SOURCES)[number];

export interface SourceSettings extends ConvertOptions {
  /** Auth0: the password-hash export. */
  readonly hashes?: string;
  /** Firebase: the project's password-hash parameters. */
  readonly hashConfig?: string;
  /** Supabase: rows of auth.identities. */
  readonly identities?: string;
  /** Supabase: rows of auth.mfa_factors. */
  readonly factors?: string;
  /** Keycloak: realm roles become user roles. */
  readonly withRoles?: boolean;
}

export interface SourceSetup {
  readonly layout: Layout;
  records(counter?: ByteCounter): AsyncGenerator<SourceRecord>;
  /** Why the first record shows the file is not this source's export, if it does. */
  checkFirst?(value: unknown): string | undefined;
  convert(value: unknown): Conversion;
  /** Digests of the side files and settings that shape the payload (part of the Idempotency-Key). */
  readonly inputDigests: readonly string[];
  /** What was loaded, for the user (counts only). */
  readonly notes: readonly string[];
  /** Firebase: the signer key the app must have. */
  readonly firebaseHashConfig?: FirebaseHashConfig;
  /**
   * Users known before the first record to carry TOTP devices (from a side file: Supabase's
   * `--factors`), so that an app without `mfa_enabled` is named before anything is staged.
   */
  readonly totpUsersKnown?: number;
  close(): void;
}

function layoutFor(source: SourceName, detected: Layout): Layout {
  switch (source) {
    case 'auth0':
      if (detected === 'json-array' || detected === 'json-users') return detected;
      return 'ndjson';
    case 'clerk':
    case 'wordpress':
      return 'csv';
    case 'keycloak':
      // `{"realm": …, "users": [...]}` (the users file or the realm file), or a JSON array of users.
      return detected === 'json-array' ? 'json-array' : 'json-users';
    case 'firebase':
      return detected === 'csv' ? 'csv' : detected === 'json-array' ? 'json-array' : 'json-users';
    default:
      return detected;
  }
}

async function readSetting(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    throw usageError(`cannot read ${what} ${path}`);
  }
}

export async function setupSource(
  source: SourceName,
  exportPath: string,
  settings: SourceSettings,
): Promise<SourceSetup> {
  const layout = layoutFor(source, await detectLayout(exportPath));
  const records = (counter?: ByteCounter) => recordsOf(exportPath, layout, true, counter);
  switch (source) {
    case 'supertokens':
      if (layout === 'csv')
        throw usageError(`${exportPath} is not JSON: --from supertokens reads {"users":[…]}, a JSON array or NDJSON`);
      return { layout, records, convert: convertSupertokens, inputDigests: [], notes: [], close: () => undefined };
    case 'auth0': {
      const hashes = settings.hashes
        ? await loadAuth0Hashes(settings.hashes).catch(() => {
            throw usageError(`cannot read the password-hash export ${settings.hashes}`);
          })
        : undefined;
      return {
        layout,
        records,
        checkFirst: (value) => (hasKey(value, 'user_id') ? undefined : 'no "user_id" field: not an Auth0 user export'),
        convert: (value) =>
          convertAuth0(value, { ...settings, hashFor: (id) => hashes?.hashFor(id), hashesGiven: hashes !== undefined }),
        inputDigests: settings.hashes ? [await fileDigest(settings.hashes)] : [],
        notes: hashes
          ? [`${hashes.count} password hashes in ${settings.hashes}`]
          : ['no password-hash export given (--hashes): database users cannot be imported'],
        close: () => hashes?.close(),
      };
    }
    case 'firebase': {
      if (!settings.hashConfig) {
        throw usageError(
          "--from firebase needs --hash-config <file>: the project's password hash parameters (Authentication → Users → ⋮ → Password hash parameters)",
        );
      }
      const content = await readSetting(settings.hashConfig, 'the hash config');
      let hashConfig: FirebaseHashConfig;
      try {
        hashConfig = parseFirebaseHashConfig(content);
      } catch (error) {
        throw usageError(`--hash-config ${settings.hashConfig}: ${(error as Error).message}`);
      }
      const csv = layout === 'csv';
      return {
        layout,
        records: csv ? (counter?: ByteCounter) => recordsOf(exportPath, 'csv', false, counter) : records,
        convert: (value) =>
          convertFirebase(csv && Array.isArray(value) ? firebaseCsvRowToRecord(value as string[]) : value, {
            ...settings,
            hashConfig,
          }),
        inputDigests: [await fileDigest(settings.hashConfig)],
        notes: [`hash parameters: rounds ${hashConfig.rounds}, mem_cost ${hashConfig.memCost}`],
        firebaseHashConfig: hashConfig,
        checkFirst: (value) =>
          csv
            ? Array.isArray(value) && value.length >= 26
              ? undefined
              : 'fewer columns than firebase auth:export writes'
            : hasKey(value, 'localId')
              ? undefined
              : 'no "localId": not a Firebase auth:export',
        close: () => undefined,
      };
    }
    case 'supabase': {
      const identities = settings.identities
        ? await rowsByUser(settings.identities, 'the identities file', (row) => {
            const found = supabaseIdentity(row);
            return found && { userId: found.userId, item: found.identity };
          })
        : new Map<string, SupabaseIdentity[]>();
      const factors = settings.factors
        ? await rowsByUser(settings.factors, 'the factors file', (row) => {
            const found = supabaseFactor(row);
            return found && { userId: found.userId, item: found.factor };
          })
        : new Map<string, SupabaseFactor[]>();
      let totpUsers = 0;
      for (const list of factors.values()) if (list.some((f) => f.type === 'totp')) totpUsers += 1;
      const notes: string[] = [];
      if (settings.identities)
        notes.push(`third-party identities of ${identities.size} users in ${settings.identities}`);
      notes.push(
        settings.factors
          ? `verified second factors of ${factors.size} users in ${settings.factors} (${totpUsers} with TOTP)`
          : 'no --factors given: second factors (auth.mfa_factors) are not read, and users who had them go in without them',
      );
      return {
        layout,
        records,
        convert: (value) =>
          convertSupabase(value, {
            ...settings,
            identitiesOf: (id) => identities.get(id) ?? [],
            factorsOf: (id) => factors.get(id) ?? [],
          }),
        checkFirst: (value) => (hasKey(value, 'id') ? undefined : 'no "id" column or field: not rows of auth.users'),
        inputDigests: [
          ...(settings.identities ? [await fileDigest(settings.identities)] : []),
          ...(settings.factors ? [`factors:${await fileDigest(settings.factors)}`] : []),
        ],
        notes,
        totpUsersKnown: totpUsers,
        close: () => undefined,
      };
    }
    case 'clerk':
      return {
        layout,
        records,
        convert: (value) => convertClerk(value, settings),
        checkFirst: (value) => (hasKey(value, 'id') ? undefined : 'no "id" column: not a Clerk dashboard export'),
        inputDigests: [],
        notes: [],
        close: () => undefined,
      };
    case 'keycloak': {
      const withRoles = settings.withRoles === true;
      return {
        layout,
        records,
        convert: (value) => convertKeycloak(value, { ...settings, withRoles }),
        checkFirst: (value) =>
          hasKey(value, 'username') ? undefined : 'no "username": not a user of a Keycloak realm export',
        inputDigests: withRoles ? ['with-roles'] : [],
        notes: withRoles ? ['realm roles become user roles (--with-roles); they must exist in the app'] : [],
        close: () => undefined,
      };
    }
    case 'django':
      if (layout === 'csv')
        throw usageError(`${exportPath} is not JSON: --from django reads manage.py dumpdata (a JSON array or JSONL)`);
      return {
        layout,
        records,
        convert: (value) => convertDjango(value, settings),
        checkFirst: (value) =>
          hasKey(value, 'fields') ? undefined : 'no "fields": not a record of manage.py dumpdata',
        inputDigests: [],
        notes: [],
        close: () => undefined,
      };
    case 'wordpress':
      return {
        layout,
        records,
        convert: (value) => convertWordpress(value, settings),
        checkFirst: (value) =>
          hasKey(value, 'ID') && hasKey(value, 'user_pass')
            ? undefined
            : 'no "ID" and "user_pass" columns: not rows of wp_users with a header',
        inputDigests: [],
        notes: [],
        close: () => undefined,
      };
  }
}

/** Rows of a side file (CSV with a header, a JSON array or NDJSON) grouped by the user they belong to. */
async function rowsByUser<T>(
  path: string,
  what: string,
  read: (row: unknown) => { userId: string; item: T } | undefined,
): Promise<Map<string, T[]>> {
  const byUser = new Map<string, T[]>();
  const layout = await detectLayout(path).catch(() => {
    throw usageError(`cannot read ${what} ${path}`);
  });
  for await (const record of recordsOf(path, layout)) {
    if (!('value' in record)) continue;
    const found = read(record.value);
    if (!found) continue;
    const list = byUser.get(found.userId) ?? [];
    list.push(found.item);
    byUser.set(found.userId, list);
  }
  return byUser;
}

function hasKey(value: unknown, key: string): boolean {
  return typeof value === 'object' && value !== null && key in value;
}
