/**
 * What `migrate` checks before it reads the export and after: the run's own options, the app and
 * tenant on the core, what the source needs the app to hold (Firebase's signer key), `mfa_enabled`
 * for users known to carry TOTP devices, whether the core can check a dry run, and the roles the
 * users hold. Also the hints shown once when the core refuses users for a missing app setting.
 */
import { statSync } from 'node:fs';
import { PUBLIC_TENANT_ID } from '../contract.js';
import { type CoreClient, sameCredential } from '../core-client.js';
import { coreError, usageError } from '../errors.js';
import type { Progress } from '../progress.js';
import { excerpt } from '../redact.js';
import type { AppConfigRequirement, OpenedSource } from '../sources/source.js';

/** The app's settings that decide which users the core takes. */
export interface AppFacts {
  readonly appId: string;
  readonly config: Readonly<Record<string, unknown>>;
  /** `account_linking_enabled` or `mfa_enabled`: users with several login methods are taken. */
  readonly linking: boolean;
  /** `mfa_enabled`: users with TOTP devices are taken. */
  readonly mfa: boolean;
}

/** What the checks found on the core. */
export interface CoreFacts {
  readonly app: AppFacts;
  /** Dry run: whether the core checks chunks (`?dryRun=true`); true for a real run. */
  readonly checksDryRun: boolean;
}

/**
 * Before the export is read: the app and tenant exist and take the key, the app holds what the source
 * needs, users known to carry TOTP devices have `mfa_enabled`, and (dry run) the core can check.
 */
export async function checkCore(
  client: CoreClient,
  progress: Progress,
  source: Pick<OpenedSource, 'appConfig' | 'totpUsersKnown'> & { readonly passwordHook?: boolean },
  tenantId: string,
  dryRun: boolean,
): Promise<CoreFacts> {
  const app = await readApp(client, tenantId);
  if (source.appConfig) await ensureAppConfig(client, progress, app, source.appConfig, dryRun);
  if (source.passwordHook) checkPasswordHook(app, progress, dryRun);
  AppHints.checkTotpUsersKnown(app, progress, source.totpUsersKnown ?? 0, dryRun);
  if (!dryRun) return { app, checksDryRun: true };
  const checksDryRun = await supportsDryRun(client);
  if (!checksDryRun) {
    progress.say(
      `The core at ${client.shownUrl} does not support dry runs (POST /bulk-import/users?dryRun=true answered without "dryRun":true). ` +
        'Only the conversion and the duplicate check across the file run; nothing is sent to the core.',
      true,
    );
  }
  return { app, checksDryRun };
}

/**
 * Checks `--batch-size`, `--request-seconds`, `--concurrency` and the export file; returns the
 * export's size in bytes.
 */
export function checkRunOptions(
  options: { exportPath: string; batchSize: number | 'auto'; requestSeconds?: number; concurrency: number },
  maxBatchSize: number,
): number {
  const size = options.batchSize;
  if (size !== 'auto' && (!Number.isInteger(size) || size < 1 || size > maxBatchSize)) {
    throw usageError(`--batch-size must be auto or an integer from 1 to ${maxBatchSize}`);
  }
  const seconds = options.requestSeconds;
  if (seconds !== undefined && (!Number.isInteger(seconds) || seconds < 1 || seconds > 120)) {
    throw usageError('--request-seconds must be an integer from 1 to 120');
  }
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1 || options.concurrency > 32) {
    throw usageError('--concurrency must be an integer from 1 to 32');
  }
  try {
    const stat = statSync(options.exportPath);
    if (!stat.isFile()) throw new Error('not a file');
    return stat.size;
  } catch {
    throw usageError(`cannot read the export file ${options.exportPath}`);
  }
}

/** The app (and tenant) must exist and accept the key before anything else happens. */
async function readApp(client: CoreClient, tenantId: string): Promise<AppFacts> {
  const reply = client.checked(
    await client.request('GET', client.appPath('/recipe/multitenancy/tenant/v2', PUBLIC_TENANT_ID), { attempts: 3 }),
    'reading the app',
  );
  const json = reply.json as { status?: unknown; coreConfig?: unknown } | undefined;
  if (reply.status !== 200 || json?.status === 'TENANT_NOT_FOUND_ERROR') {
    throw coreError(`the app ${client.options.appId} does not exist on the core at ${client.shownUrl}`);
  }
  if (json?.status !== 'OK')
    throw coreError(`unexpected answer reading the app: ${reply.status} ${excerpt(reply.text, 200)}`);
  if (tenantId !== PUBLIC_TENANT_ID) {
    const tenant = client.checked(
      await client.request('GET', client.appPath('/recipe/multitenancy/tenant/v2', tenantId)),
      'reading the tenant',
    );
    if ((tenant.json as { status?: unknown } | undefined)?.status !== 'OK') {
      throw coreError(`the tenant ${tenantId} does not exist in app ${client.options.appId}`);
    }
  }
  const config =
    typeof json.coreConfig === 'object' && json.coreConfig !== null ? (json.coreConfig as Record<string, unknown>) : {};
  return {
    appId: client.options.appId,
    config,
    linking: config.account_linking_enabled === true || config.mfa_enabled === true,
    mfa: config.mfa_enabled === true,
  };
}

/**
 * The app must hold the value the source needs (compared by the fingerprint the core shows): another
 * value stops the run; a missing one is set by a real run and named by a dry run.
 */
async function ensureAppConfig(
  client: CoreClient,
  progress: Progress,
  app: AppFacts,
  needed: AppConfigRequirement,
  dryRun: boolean,
): Promise<void> {
  const shown = app.config[needed.key];
  const { appId } = app;
  if (shown !== undefined && shown !== null && shown !== '') {
    if (sameCredential(shown, needed.value)) return;
    throw usageError(
      `app ${appId} has a different ${needed.key} than ${needed.from}: nothing was staged. ${needed.onMismatch}`,
    );
  }
  if (dryRun) {
    progress.say(`app ${appId} has no ${needed.key}: a real run sets it from ${needed.from}`);
    return;
  }
  const reply = client.checked(
    await client.request('PUT', '/recipe/multitenancy/app/v2', {
      body: JSON.stringify({ appId, coreConfig: { [needed.key]: needed.value } }),
    }),
    `setting ${needed.name}`,
  );
  if (reply.status !== 200) {
    throw coreError(`could not set ${needed.key} on app ${appId}: ${reply.status} ${excerpt(reply.text, 200)}`);
  }
  progress.say(`set ${needed.key} on app ${appId} from ${needed.from}`);
}

/** The app setting without which the core refuses users pending the password-migration hook. */
const HOOK_URL_KEY = 'password_migration_hook_url';

/**
 * `--password-hook`: the core takes users pending the hook only into an app with a hook configured;
 * a real run stops before staging when the app has none, a dry run says so.
 */
function checkPasswordHook(app: AppFacts, progress: Progress, dryRun: boolean): void {
  const url = app.config[HOOK_URL_KEY];
  if (typeof url === 'string' && url !== '') return;
  const message =
    `app ${app.appId} has no ${HOOK_URL_KEY}, and the core takes users pending the password-migration hook (--password-hook) only into an app with one: ` +
    `set it and password_migration_hook_secret (PUT /recipe/multitenancy/app/v2 {"appId":"${app.appId}","coreConfig":{"${HOOK_URL_KEY}":"https://…","password_migration_hook_secret":"…"}}) and run the same command again`;
  if (!dryRun) throw usageError(`${message}. Nothing was staged.`);
  progress.say(`${message}: the core refuses the pending users`, true);
}

/** What the command says when users carry TOTP devices and the app lacks `mfa_enabled`. */
function mfaMissing(appId: string, what: string): string {
  return (
    `${what}, but app ${appId} does not have mfa_enabled, and the core imports TOTP devices only into apps that have it: ` +
    `set it (PUT /recipe/multitenancy/app/v2 {"appId":"${appId}","coreConfig":{"mfa_enabled":true}}) and run the same command again`
  );
}

/** Whether the core honours `?dryRun=true`: an empty dry run must answer with `"dryRun":true`. */
async function supportsDryRun(client: CoreClient): Promise<boolean> {
  const reply = client.checked(
    await client.request('POST', client.appPath('/bulk-import/users?dryRun=true'), { body: '{"users":[]}' }),
    'probing the dry run',
  );
  return reply.status === 200 && (reply.json as { dryRun?: unknown } | undefined)?.dryRun === true;
}

/** Roles collected from the users, at most this many (a role list is not an export's size). */
export const MAX_ROLES_CHECKED = 10_000;

/** The roles of `used` the app does not have (`GET /recipe/roles`), sorted. */
export async function rolesMissingFrom(client: CoreClient, used: ReadonlySet<string>): Promise<string[]> {
  if (used.size === 0) return [];
  const reply = client.checked(await client.request('GET', client.appPath('/recipe/roles')), 'listing the roles');
  const roles = (reply.json as { roles?: unknown } | undefined)?.roles;
  if (reply.status !== 200 || !Array.isArray(roles))
    throw coreError(`unexpected answer listing the roles: ${reply.status} ${excerpt(reply.text, 200)}`);
  const existing = new Set(roles.map(String));
  return [...used].filter((role) => !existing.has(role)).sort();
}

/**
 * The hints about the app's settings, each shown at most once in a run: when the core refuses users
 * for account linking or MFA, and when the export holds a TOTP user for an app without MFA (which
 * stops a real run before that user is staged).
 */
export class AppHints {
  private linkingShown = false;
  private mfaShown: boolean;

  constructor(
    private readonly app: AppFacts,
    private readonly progress: Progress,
    private readonly dryRun: boolean,
    totpUsersKnown: number,
  ) {
    // Users known from a side file were named before reading (checkTotpUsersKnown).
    this.mfaShown = totpUsersKnown > 0;
  }

  /** Before reading: users known (from a side file) to carry TOTP devices need `mfa_enabled`. */
  static checkTotpUsersKnown(app: AppFacts, progress: Progress, totpUsersKnown: number, dryRun: boolean): void {
    if (app.mfa || totpUsersKnown === 0) return;
    const message = mfaMissing(app.appId, `${totpUsersKnown} users of the export have TOTP devices`);
    if (!dryRun) throw usageError(`${message}. Nothing was staged.`);
    progress.say(`${message}: the core refuses those users`, true);
  }

  /** The core refused a user with these messages. */
  refusedWith(messages: readonly string[]): void {
    if (
      !this.linkingShown &&
      !this.app.linking &&
      messages.some((m) => m.startsWith('Account linking must be enabled'))
    ) {
      this.linkingShown = true;
      this.progress.say(
        `app ${this.app.appId} has neither account_linking_enabled nor mfa_enabled: users with several login methods are refused (set one with PUT /recipe/multitenancy/app/v2)`,
      );
    }
    if (!this.mfaShown && messages.some((m) => m.startsWith('MFA must be enabled'))) {
      this.mfaShown = true;
      this.progress.say(
        `${mfaMissing(this.app.appId, 'users of the export have TOTP devices')}: the core refuses them`,
      );
    }
  }

  /**
   * A converted user carries TOTP devices: fine with `mfa_enabled`; otherwise a real run stops before
   * staging it, a dry run says so once.
   */
  totpUser(what: string, chunksStagedBefore: boolean): void {
    if (this.app.mfa || this.mfaShown) return;
    this.mfaShown = true;
    const message = mfaMissing(this.app.appId, what);
    if (!this.dryRun) {
      throw usageError(
        `${message}. Stopped before staging it${chunksStagedBefore ? ` (chunks staged before are kept: the same command resumes)` : ''}.`,
      );
    }
    this.progress.say(`${message}: the core refuses users with TOTP devices`, true);
  }
}
