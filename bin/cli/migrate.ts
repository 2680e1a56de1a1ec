/**
 * `auth-core migrate`: stream the export, convert every record, check (dry run) or stage it in gzipped
 * chunks with an Idempotency-Key each, journal what was staged, wait for the import, and report every
 * user not imported.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { normaliseImportPhoneNumber } from '#functions/domain/bulk-import/validate-user.js';
import { failedRows, stagedCounts } from './admin.js';
import { type CoreClient, sameCredential } from './core-client.js';
import { withoutCredentialKeys } from './credential-keys.js';
import { CliError, coreError, EXIT, usageError } from './errors.js';
import { FingerprintTable } from './fingerprints.js';
import { type ByteCounter, fileDigest } from './input.js';
import type { ImportUser } from './payload.js';
import { maskPhones, phoneSpellings } from './personal.js';
import type { Progress } from './progress.js';
import { excerpt, registerSecret } from './redact.js';
import { Report, type Stage } from './report.js';
import { type SourceName, type SourceSettings, type SourceSetup, setupSource } from './sources/index.js';
import { type RejectedEntry, StateFile } from './state.js';

/** Bump when the converters' output changes: it is part of every Idempotency-Key. */
export const PAYLOAD_FORMAT = 3;
export const MAX_BATCH_SIZE = 10_000;

export interface MigrateOptions {
  readonly exportPath: string;
  readonly source: SourceName;
  readonly appId: string;
  readonly tenantId: string;
  readonly settings: SourceSettings;
  readonly dryRun: boolean;
  readonly reportPath: string;
  readonly statePath: string;
  readonly wait: boolean;
  readonly batchSize: number;
  readonly concurrency: number;
  /** Delay between two count polls while waiting (ms). */
  readonly pollMs?: number;
}

export interface MigrateSummary {
  source: string;
  appId: string;
  tenantId: string;
  dryRun: boolean;
  records: number;
  converted: number;
  refused: Record<Stage, number>;
  staged: number;
  /** Chunks found already staged in the state file (resumed run). */
  resumedChunks: number;
  imported: number | null;
  failed: number | null;
  wouldImport: number | null;
  /** Dry run only: whether the core checked the chunks (false when it lacks dry-run support). */
  coreChecked: boolean | null;
  /** Roles the converted users hold that the app does not have (the core refuses those users). */
  missingRoles: string[];
  /** Second factors: users whose factors went in as TOTP devices, users with factors that could not. */
  secondFactors: { carriedAsTotp: number; notCarried: number };
  /** userMetadata keys dropped because they look like credentials, and the users they were dropped from. */
  metadataKeysDropped: { keys: number; users: number };
  /** Warnings about the run (plain http allowed by --allow-insecure-http); also in the report. */
  warnings: string[];
  report: string;
  /** Users not imported (dry run: not importable). */
  reportLines: number;
  /** Report lines of users imported with something left behind (a factor, metadata keys). */
  leftBehindLines: number;
  state: string | null;
  elapsedSeconds: number;
  exitCode: number;
}

interface Chunk {
  readonly index: number;
  readonly users: ImportUser[];
  readonly positions: number[];
  readonly sourceIds: (string | undefined)[];
}

interface ValidationAnswer {
  readonly users: ReadonlyArray<{ index: number; errors: string[] }>;
}

function validationAnswer(json: unknown): ValidationAnswer | undefined {
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { users?: unknown }).users))
    return undefined;
  const users = (json as { users: unknown[] }).users;
  const ok = users.every(
    (u) =>
      typeof u === 'object' &&
      u !== null &&
      Number.isInteger((u as { index?: unknown }).index) &&
      Array.isArray((u as { errors?: unknown }).errors),
  );
  return ok ? (json as ValidationAnswer) : undefined;
}

/** The migration's key: what the export, its side files and the options that shape the payload hash to. */
export function migrationKey(parts: {
  exportSha256: string;
  inputDigests: readonly string[];
  source: string;
  appId: string;
  tenantId: string;
  batchSize: number;
  providerMap: ReadonlyMap<string, string>;
}): string {
  const material = JSON.stringify({
    format: PAYLOAD_FORMAT,
    export: parts.exportSha256,
    inputs: parts.inputDigests,
    source: parts.source,
    app: parts.appId,
    tenant: parts.tenantId,
    batch: parts.batchSize,
    providers: [...parts.providerMap.entries()].sort(),
  });
  return createHash('sha256').update(material).digest('hex').slice(0, 32);
}

/** The Idempotency-Key of a chunk; `round` > 0 after users the core refused were taken out. */
export function chunkKey(migration: string, index: number, round = 0): string {
  return round === 0 ? `auth-core-migrate-${migration}-${index}` : `auth-core-migrate-${migration}-${index}-r${round}`;
}

/**
 * Keys under which two users of one tenant cannot coexist (for the dry run's duplicate check), with
 * emails and phone numbers normalised as the core stores them: an export passed through as written
 * (`--from supertokens`) may spell one number two ways.
 */
function uniquenessKeys(user: ImportUser, fallbackTenant: string): string[] {
  const keys: string[] = [];
  if (user.externalUserId !== undefined) keys.push(`external id ${user.externalUserId.trim()}`);
  for (const method of user.loginMethods ?? []) {
    const email = typeof method.email === 'string' ? method.email.trim().toLowerCase() : undefined;
    const phone = typeof method.phoneNumber === 'string' ? normaliseImportPhoneNumber(method.phoneNumber) : undefined;
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function migrate(
  options: MigrateOptions,
  client: CoreClient,
  progress: Progress,
): Promise<MigrateSummary> {
  if (!Number.isInteger(options.batchSize) || options.batchSize < 1 || options.batchSize > MAX_BATCH_SIZE) {
    throw usageError(`--batch-size must be an integer from 1 to ${MAX_BATCH_SIZE}`);
  }
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1 || options.concurrency > 32) {
    throw usageError('--concurrency must be an integer from 1 to 32');
  }
  let exportSize: number;
  try {
    const stat = statSync(options.exportPath);
    if (!stat.isFile()) throw new Error('not a file');
    exportSize = stat.size;
  } catch {
    throw usageError(`cannot read the export file ${options.exportPath}`);
  }

  const setup = await setupSource(options.source, options.exportPath, options.settings);
  try {
    return await run(options, client, progress, setup, exportSize);
  } finally {
    setup.close();
  }
}

async function run(
  options: MigrateOptions,
  client: CoreClient,
  progress: Progress,
  setup: SourceSetup,
  exportSize: number,
): Promise<MigrateSummary> {
  const c = progress.counters;
  for (const note of setup.notes) progress.say(note);
  const exportSha256 = await fileDigest(options.exportPath);
  const signer = setup.firebaseHashConfig;
  registerSecret(signer?.signerKey);
  registerSecret(signer?.saltSeparator);

  // The app (and tenant) must exist and accept the key before anything else happens.
  const appConfig = await readAppConfig(client, options.tenantId);
  if (signer) await ensureSignerKey(client, progress, appConfig, signer.signerKey, options.dryRun);
  const linking = appConfig.account_linking_enabled === true || appConfig.mfa_enabled === true;
  const mfaEnabled = appConfig.mfa_enabled === true;
  if (!mfaEnabled && (setup.totpUsersKnown ?? 0) > 0) {
    const message = mfaMissing(options.appId, `${setup.totpUsersKnown} users of the export have TOTP devices`);
    if (!options.dryRun) throw usageError(`${message}. Nothing was staged.`);
    progress.say(`${message}: the core refuses those users`, true);
  }

  let coreChecks = true;
  if (options.dryRun) {
    coreChecks = await supportsDryRun(client);
    if (!coreChecks) {
      progress.say(
        `The core at ${client.shownUrl} does not support dry runs (POST /bulk-import/users?dryRun=true answered without "dryRun":true). ` +
          'Only the conversion and the duplicate check across the file run; nothing is sent to the core.',
        true,
      );
    }
  }

  const key = migrationKey({
    exportSha256,
    inputDigests: setup.inputDigests,
    source: options.source,
    appId: options.appId,
    tenantId: options.tenantId,
    batchSize: options.batchSize,
    providerMap: options.settings.providerMap,
  });
  const state = options.dryRun
    ? undefined
    : StateFile.open(options.statePath, {
        type: 'migration',
        version: 1,
        key,
        exportPath: options.exportPath,
        exportSha256,
        source: options.source,
        appId: options.appId,
        tenantId: options.tenantId,
        batchSize: options.batchSize,
        startedAt: new Date().toISOString(),
      });
  if (state?.resumed)
    progress.say(`resuming: ${state.chunks.size} chunks already staged (state file ${options.statePath})`);

  let report: Report;
  try {
    report = new Report(options.reportPath);
  } catch (error) {
    state?.close();
    throw error;
  }
  const warnings = client.insecureWarning === undefined ? [] : [client.insecureWarning];
  for (const warning of warnings) report.addWarning(warning);
  const carried = { totpUsers: 0, factorUsers: 0, metadataKeys: 0, metadataUsers: 0 };
  let mfaHintShown = (setup.totpUsersKnown ?? 0) > 0;
  const positions: number[] = [];
  const duplicates = options.dryRun ? new FingerprintTable(1 << 16) : undefined;
  /** Dry run: per chunk, users (chunk index → messages) that repeat a key of an earlier chunk. */
  const localDuplicates = new Map<number, Map<number, string[]>>();
  let wouldImport = 0;
  let linkingHintShown = false;
  /** Every role a converted user holds (bounded: a role list is not an export's size). */
  const rolesUsed = new Set<string>();

  const reportCheck = (chunk: Chunk, local: number, messages: string[]) => {
    if (!linkingHintShown && !linking && messages.some((m) => m.startsWith('Account linking must be enabled'))) {
      linkingHintShown = true;
      progress.say(
        `app ${options.appId} has neither account_linking_enabled nor mfa_enabled: users with several login methods are refused (set one with PUT /recipe/multitenancy/app/v2)`,
      );
    }
    if (!mfaHintShown && messages.some((m) => m.startsWith('MFA must be enabled'))) {
      mfaHintShown = true;
      progress.say(`${mfaMissing(options.appId, 'users of the export have TOTP devices')}: the core refuses them`);
    }
    const sourceId = chunk.sourceIds[local];
    report.add({
      position: chunk.positions[local] as number,
      sourceId,
      externalUserId: chunk.users[local]?.externalUserId ?? sourceId,
      stage: 'check',
      messages,
      phoneNumbers: phoneSpellings(chunk.users[local]?.loginMethods),
    });
    c.refused += 1;
  };

  // One chunk through the core: staged (or checked), taking out users the core refuses until the rest passes.
  const sendChunk = async (chunk: Chunk): Promise<void> => {
    let remaining = chunk.users.map((_, i) => i);
    const rejected: RejectedEntry[] = [];
    const path = client.appPath(options.dryRun ? '/bulk-import/users?dryRun=true' : '/bulk-import/users');
    const local = localDuplicates.get(chunk.index) ?? new Map<number, string[]>();
    localDuplicates.delete(chunk.index);
    for (let round = 0; remaining.length > 0; round++) {
      const body = gzipSync(JSON.stringify({ users: remaining.map((i) => chunk.users[i]) }));
      const headers: Record<string, string> = options.dryRun
        ? {}
        : { 'idempotency-key': chunkKey(key, chunk.index, round) };
      const reply = client.checked(
        await client.request('POST', path, { body, gzip: true, headers }),
        `chunk ${chunk.index}`,
      );
      if (reply.status === 200) {
        const answer = reply.json as { dryRun?: unknown; wouldImport?: unknown; conflicts?: unknown; users?: unknown };
        if (options.dryRun) {
          if (answer?.dryRun !== true)
            throw coreError(`the core answered chunk ${chunk.index} of the dry run without "dryRun":true; stopped`);
          const conflicts = Array.isArray(answer.conflicts)
            ? (answer.conflicts as Array<{ index?: unknown; errors?: unknown }>)
            : [];
          for (const conflict of conflicts) {
            const at = Number.isInteger(conflict.index) ? remaining[conflict.index as number] : undefined;
            if (at === undefined) continue;
            const messages = Array.isArray(conflict.errors) ? conflict.errors.map(String) : [];
            local.set(at, [...messages, ...(local.get(at) ?? [])]);
          }
          for (const [at, messages] of [...local.entries()].sort((a, b) => a[0] - b[0]))
            reportCheck(chunk, at, messages);
          wouldImport += remaining.filter((i) => !local.has(i)).length;
          return;
        }
        const users = Array.isArray(answer?.users)
          ? (answer.users as Array<{ loginMethods?: Array<{ userId?: unknown }> }>)
          : [];
        if (users.length !== remaining.length) {
          throw coreError(
            `the core answered chunk ${chunk.index} with ${users.length} staged users for ${remaining.length} sent`,
          );
        }
        const ids = users.map((u) => (u.loginMethods ?? []).map((m) => String(m.userId)));
        state?.record({ index: chunk.index, users: chunk.users.length, ids, rejected });
        c.staged += remaining.length;
        return;
      }
      const invalid = reply.status === 400 ? validationAnswer(reply.json) : undefined;
      if (invalid) {
        const refused = new Set<number>();
        for (const entry of invalid.users) {
          const at = remaining[entry.index];
          if (at === undefined || refused.has(at)) continue;
          refused.add(at);
          // The journal keeps the core's reasons as the report shows them: phone numbers masked.
          const phones = phoneSpellings(chunk.users[at]?.loginMethods);
          rejected.push({ i: at, errors: entry.errors.map((e) => maskPhones(String(e), phones)) });
          reportCheck(chunk, at, entry.errors.map(String));
          local.delete(at);
        }
        if (refused.size === 0)
          throw coreError(`the core refused chunk ${chunk.index} without naming a user: ${excerpt(reply.text, 300)}`);
        remaining = remaining.filter((i) => !refused.has(i));
        continue;
      }
      if (reply.status === 422) {
        throw usageError(
          `the core has already seen chunk ${chunk.index} of this migration with a different body (422 ${reply.text}); ` +
            'the export or the command changed since it was staged: give a new --state file to stage it as a new migration',
        );
      }
      if (reply.status === 413)
        throw usageError(`chunk ${chunk.index} is too large for the core (413): use a smaller --batch-size`);
      throw coreError(`the core refused chunk ${chunk.index}: ${reply.status} ${excerpt(reply.text, 300)}`);
    }
    // Every user of the chunk was refused.
    if (!options.dryRun) state?.record({ index: chunk.index, users: chunk.users.length, ids: [], rejected });
  };

  // At most `concurrency` chunks in flight; the first failure stops the rest.
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  const schedule = async (chunk: Chunk) => {
    while (inFlight.size >= options.concurrency) await Promise.race(inFlight);
    if (failure) throw failure;
    const done = state?.chunks.get(chunk.index);
    if (done) {
      for (const entry of done.rejected) reportCheck(chunk, entry.i, [...entry.errors]);
      c.staged += done.ids.length;
      return;
    }
    if (options.dryRun && !coreChecks) {
      const local = localDuplicates.get(chunk.index) ?? new Map<number, string[]>();
      localDuplicates.delete(chunk.index);
      for (const [at, messages] of [...local.entries()].sort((a, b) => a[0] - b[0])) reportCheck(chunk, at, messages);
      wouldImport += chunk.users.length - local.size;
      return;
    }
    const task: Promise<void> = sendChunk(chunk)
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  const counter: ByteCounter = { bytes: 0 };
  progress.phase(options.dryRun ? 'checking' : 'staging', exportSize);
  let chunk: Chunk = { index: 0, users: [], positions: [], sourceIds: [] };
  try {
    for await (const record of setup.records(counter)) {
      c.records += 1;
      if ('error' in record) {
        if (c.records === 1)
          throw usageError(`${options.exportPath} is not readable as ${setup.layout}: ${record.error}`);
        report.add({
          position: record.position,
          sourceId: undefined,
          externalUserId: undefined,
          stage: 'convert',
          messages: [record.error],
        });
        c.refused += 1;
        continue;
      }
      if (c.records === 1) {
        const problem = setup.checkFirst?.(record.value);
        if (problem) throw usageError(`${options.exportPath} is not a ${options.source} export: ${problem}`);
      }
      const conversion = setup.convert(record.value);
      if (!conversion.ok) {
        report.add({
          position: record.position,
          sourceId: conversion.sourceId,
          externalUserId: conversion.sourceId,
          stage: 'convert',
          messages: conversion.reasons,
        });
        c.refused += 1;
        continue;
      }
      c.converted += 1;
      const leftBehind = [...conversion.factorsLeftBehind];
      const metadata = conversion.user.userMetadata;
      if (metadata !== undefined && typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)) {
        const scrubbed = withoutCredentialKeys(metadata);
        if (scrubbed.dropped.length > 0) {
          if (Object.keys(scrubbed.metadata).length > 0) conversion.user.userMetadata = scrubbed.metadata;
          else delete conversion.user.userMetadata;
          carried.metadataKeys += scrubbed.dropped.length;
          carried.metadataUsers += 1;
          for (const path of scrubbed.dropped) {
            leftBehind.push(
              `userMetadata key ${path} dropped: it looks like a credential, and tokens and secrets never enter user metadata`,
            );
          }
        }
      }
      if (conversion.factorsLeftBehind.length > 0) carried.factorUsers += 1;
      const hasTotp = Array.isArray(conversion.user.totpDevices) && conversion.user.totpDevices.length > 0;
      if (hasTotp) {
        carried.totpUsers += 1;
        if (!mfaEnabled && !mfaHintShown) {
          mfaHintShown = true;
          const message = mfaMissing(
            options.appId,
            `record ${record.position} (${conversion.sourceId ?? 'no id'}) has TOTP devices`,
          );
          if (!options.dryRun) {
            throw usageError(
              `${message}. Stopped before staging it${chunk.index > 0 ? ` (chunks staged before are kept: the same command resumes)` : ''}.`,
            );
          }
          progress.say(`${message}: the core refuses users with TOTP devices`, true);
        }
      }
      if (leftBehind.length > 0) {
        report.addLeftBehind({
          position: record.position,
          sourceId: conversion.sourceId,
          externalUserId: conversion.user.externalUserId ?? conversion.sourceId,
          stage: 'convert',
          messages: leftBehind,
          phoneNumbers: phoneSpellings(conversion.user.loginMethods),
        });
      }
      for (const { role } of conversion.user.userRoles ?? []) {
        if (typeof role === 'string' && rolesUsed.size < MAX_ROLES_CHECKED) rolesUsed.add(role.trim());
      }
      const payloadIndex = positions.length;
      positions.push(record.position);
      if (duplicates) {
        for (const uniqueKey of uniquenessKeys(conversion.user, options.tenantId)) {
          const first = duplicates.addIfAbsent(uniqueKey, payloadIndex);
          if (first === undefined || Math.floor(first / options.batchSize) === chunk.index) continue;
          const mine = localDuplicates.get(chunk.index) ?? new Map<number, string[]>();
          localDuplicates.set(chunk.index, mine);
          const messages = mine.get(chunk.users.length) ?? [];
          messages.push(`duplicate: the same ${uniqueKey} as record ${positions[first]} (in an earlier chunk)`);
          mine.set(chunk.users.length, messages);
        }
      }
      chunk.users.push(conversion.user);
      chunk.positions.push(record.position);
      chunk.sourceIds.push(conversion.sourceId);
      if (chunk.users.length === options.batchSize) {
        await schedule(chunk);
        chunk = { index: chunk.index + 1, users: [], positions: [], sourceIds: [] };
      }
      if ((c.records & 255) === 0) progress.update(counter.bytes);
    }
    if (chunk.users.length > 0) await schedule(chunk);
    await Promise.all(inFlight);
    if (failure) throw failure;
  } catch (error) {
    await Promise.allSettled(inFlight);
    report.close();
    state?.close();
    progress.finishBar();
    if (error instanceof CliError) throw error;
    throw usageError(`cannot read ${options.exportPath}: ${(error as Error).message}`);
  }
  progress.update(counter.bytes);
  if (c.records === 0) {
    report.close();
    state?.close();
    throw usageError(`${options.exportPath} holds no records`);
  }

  const missingRoles = rolesUsed.size === 0 ? [] : await rolesMissingFrom(client, rolesUsed);
  if (missingRoles.length > 0) {
    progress.say(
      `roles not in app ${options.appId}: ${missingRoles.join(', ')} — the users holding them are refused; create the roles (PUT /recipe/role) and run again`,
      true,
    );
  }

  let imported: number | null = null;
  let failed: number | null = null;
  if (!options.dryRun && options.wait && c.staged > 0 && state) {
    ({ imported, failed } = await waitAndCollect(options, client, progress, state, positions, report));
  }
  report.close();
  state?.close();
  progress.finishBar();

  const exitCode = options.dryRun && !coreChecks ? EXIT.core : report.total > 0 ? EXIT.someNotImported : EXIT.ok;
  return {
    source: options.source,
    appId: options.appId,
    tenantId: options.tenantId,
    dryRun: options.dryRun,
    records: c.records,
    converted: c.converted,
    refused: { ...report.counts },
    staged: options.dryRun ? 0 : c.staged,
    resumedChunks: state?.resumedChunks ?? 0,
    imported,
    failed,
    wouldImport: options.dryRun ? wouldImport : null,
    coreChecked: options.dryRun ? coreChecks : null,
    missingRoles,
    secondFactors: { carriedAsTotp: carried.totpUsers, notCarried: carried.factorUsers },
    metadataKeysDropped: { keys: carried.metadataKeys, users: carried.metadataUsers },
    warnings,
    report: options.reportPath,
    reportLines: report.total,
    leftBehindLines: report.leftBehind,
    state: options.dryRun ? null : options.statePath,
    elapsedSeconds: Math.round(progress.elapsedMs / 100) / 10,
    exitCode,
  };
}

/** What the command says when users carry TOTP devices and the app lacks `mfa_enabled`. */
function mfaMissing(appId: string, what: string): string {
  return (
    `${what}, but app ${appId} does not have mfa_enabled, and the core imports TOTP devices only into apps that have it: ` +
    `set it (PUT /recipe/multitenancy/app/v2 {"appId":"${appId}","coreConfig":{"mfa_enabled":true}}) and run the same command again`
  );
}

async function readAppConfig(client: CoreClient, tenantId: string): Promise<Record<string, unknown>> {
  const reply = client.checked(
    await client.request('GET', client.appPath('/recipe/multitenancy/tenant/v2', 'public'), { attempts: 3 }),
    'reading the app',
  );
  const json = reply.json as { status?: unknown; coreConfig?: unknown } | undefined;
  if (reply.status !== 200 || json?.status === 'TENANT_NOT_FOUND_ERROR') {
    throw coreError(`the app ${client.options.appId} does not exist on the core at ${client.shownUrl}`);
  }
  if (json?.status !== 'OK')
    throw coreError(`unexpected answer reading the app: ${reply.status} ${excerpt(reply.text, 200)}`);
  if (tenantId !== 'public') {
    const tenant = client.checked(
      await client.request('GET', client.appPath('/recipe/multitenancy/tenant/v2', tenantId)),
      'reading the tenant',
    );
    if ((tenant.json as { status?: unknown } | undefined)?.status !== 'OK') {
      throw coreError(`the tenant ${tenantId} does not exist in app ${client.options.appId}`);
    }
  }
  const config = json.coreConfig;
  return typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
}

async function ensureSignerKey(
  client: CoreClient,
  progress: Progress,
  appConfig: Record<string, unknown>,
  signerKey: string,
  dryRun: boolean,
): Promise<void> {
  const shown = appConfig.firebase_password_hashing_signer_key;
  const appId = client.options.appId;
  if (shown !== undefined && shown !== null && shown !== '') {
    if (sameCredential(shown, signerKey)) return;
    throw usageError(
      `app ${appId} has a different firebase_password_hashing_signer_key than the hash config: nothing was staged. ` +
        'Use the hash config of the Firebase project the export comes from, or migrate into another app.',
    );
  }
  if (dryRun) {
    progress.say(`app ${appId} has no firebase_password_hashing_signer_key: a real run sets it from the hash config`);
    return;
  }
  const reply = client.checked(
    await client.request('PUT', '/recipe/multitenancy/app/v2', {
      body: JSON.stringify({ appId, coreConfig: { firebase_password_hashing_signer_key: signerKey } }),
    }),
    'setting the signer key',
  );
  if (reply.status !== 200) {
    throw coreError(
      `could not set firebase_password_hashing_signer_key on app ${appId}: ${reply.status} ${excerpt(reply.text, 200)}`,
    );
  }
  progress.say(`set firebase_password_hashing_signer_key on app ${appId} from the hash config`);
}

const MAX_ROLES_CHECKED = 10_000;

/** The roles of `used` the app does not have (`GET /recipe/roles`), sorted. */
async function rolesMissingFrom(client: CoreClient, used: ReadonlySet<string>): Promise<string[]> {
  const reply = client.checked(await client.request('GET', client.appPath('/recipe/roles')), 'listing the roles');
  const roles = (reply.json as { roles?: unknown } | undefined)?.roles;
  if (reply.status !== 200 || !Array.isArray(roles))
    throw coreError(`unexpected answer listing the roles: ${reply.status} ${excerpt(reply.text, 200)}`);
  const existing = new Set(roles.map(String));
  return [...used].filter((role) => !existing.has(role)).sort();
}

/** Whether the core honours `?dryRun=true`: an empty dry run must answer with `"dryRun":true`. */
async function supportsDryRun(client: CoreClient): Promise<boolean> {
  const reply = client.checked(
    await client.request('POST', client.appPath('/bulk-import/users?dryRun=true'), { body: '{"users":[]}' }),
    'probing the dry run',
  );
  return reply.status === 200 && (reply.json as { dryRun?: unknown } | undefined)?.dryRun === true;
}

/** Waits until NEW + PROCESSING = 0, then reports every FAILED row this migration staged. */
async function waitAndCollect(
  options: MigrateOptions,
  client: CoreClient,
  progress: Progress,
  state: StateFile,
  positions: readonly number[],
  report: Report,
): Promise<{ imported: number; failed: number }> {
  const c = progress.counters;
  // Staged ids of this migration (every chunk in the journal) → index in the payload order.
  const staged = new FingerprintTable(1 << 12);
  let total = 0;
  for (const entry of state.chunks.values()) {
    const refused = new Set(entry.rejected.map((r) => r.i));
    let k = 0;
    for (let local = 0; local < entry.users && k < entry.ids.length; local++) {
      if (refused.has(local)) continue;
      for (const id of entry.ids[k] as readonly string[]) staged.add(id, entry.index * options.batchSize + local);
      k += 1;
      total += 1;
    }
  }
  const failedBefore = (await stagedCounts(client)).FAILED;
  progress.phase('waiting for the import', total);
  for (;;) {
    const counts = await stagedCounts(client);
    c.pending = counts.NEW + counts.PROCESSING;
    c.failed = Math.max(0, counts.FAILED - failedBefore);
    c.imported = Math.max(0, total - c.pending - c.failed);
    progress.update(total - c.pending);
    if (c.pending === 0) break;
    await sleep(options.pollMs ?? 1000);
  }

  let failed = 0;
  for await (const row of failedRows(client)) {
    const payloadIndex = staged.get(row.id);
    if (payloadIndex === undefined) continue;
    failed += 1;
    const external = typeof row.externalUserId === 'string' ? row.externalUserId : undefined;
    report.add({
      position: positions[payloadIndex] ?? 0,
      sourceId: external,
      externalUserId: external,
      stage: 'import',
      messages: [typeof row.errorMessage === 'string' ? row.errorMessage : 'FAILED'],
      phoneNumbers: phoneSpellings(row.loginMethods),
    });
  }
  c.failed = failed;
  c.imported = total - failed;
  return { imported: total - failed, failed };
}
