/**
 * The base config: registry defaults ← `base-config.json` ← environment variables ← the API-keys
 * secret. Loaded again at most {@link BASE_CONFIG_MAX_AGE_MS} after the last load, so a rotated
 * base key stops working within that bound (docs/security.md "API key rotation"); an invalid value is an
 * error, never a silent default. Values are never put in messages or logs (they may be API keys).
 */
import { ENV } from '#functions/shared/env.js';
import { ApiKeysSecretUnavailableError } from '#functions/shared/errors.js';
import baseConfigFile from './base-config.json' with { type: 'json' };
import type { ConfigValues } from './layers.js';
import { CONFIG_KEYS, envVariableName } from './registry.js';
import { SecretsExtensionError, secretsExtensionFetcher } from './secrets-manager-extension.js';
import { baseConfigProblem } from './validate.js';
import { parseEnvConfigValue, typeErrorMessage } from './values.js';

/** A base config that cannot be used; thrown at startup (cold start), answered as a 500. */
export class BaseConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`Invalid base config: ${message}`, options);
    this.name = 'BaseConfigError';
  }
}

/** Returns the SecretString of a Secrets Manager secret. */
type SecretFetcher = (secretArn: string) => Promise<string | undefined>;

export interface LoadBaseConfigOptions {
  /** Defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Defaults to the checked-in `base-config.json`. */
  readonly file?: unknown;
  /**
   * Defaults to asking the AWS Parameters and Secrets Lambda Extension (functions/config/secrets-manager-extension.ts),
   * which makes the `GetSecretValue` call with the function's role: no SDK client in the bundle.
   */
  readonly fetchSecret?: SecretFetcher;
  /** The clock {@link getBaseConfig} ages its copy by. @default Date.now */
  readonly now?: () => number;
}

function fileValues(file: unknown): Record<string, unknown> {
  if (file === null || typeof file !== 'object' || Array.isArray(file)) {
    throw new BaseConfigError('base-config.json must hold a JSON object');
  }
  return { ...(file as Record<string, unknown>) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Reads the base config without caching it (tests call this directly).
 *
 * - `base-config.json` holds checked-in values (JSON types as in a coreConfig).
 * - Every registry key may be set by its upper-case environment variable (`bcrypt_log_rounds` →
 *   `BCRYPT_LOG_ROUNDS`, `api_keys` → `API_KEYS`), parsed to the key's type; an empty variable is
 *   unset. Environment beats the file.
 * - If `API_KEYS_SECRET_ARN` is set, that secret's string value (comma-separated keys) is
 *   `api_keys`, beating `API_KEYS`.
 * - The result is validated like a coreConfig (unknown keys, types, value rules; base-only keys allowed).
 *
 * @throws BaseConfigError naming the variable/key and the rule, never the value.
 */
export async function loadBaseConfig(options: LoadBaseConfigOptions = {}): Promise<ConfigValues> {
  const env = options.env ?? process.env;
  const values = fileValues(options.file ?? baseConfigFile);

  for (const definition of CONFIG_KEYS) {
    const name = envVariableName(definition.key);
    const raw = nonEmpty(env[name]);
    if (raw === undefined) continue;
    const parsed = parseEnvConfigValue(definition.type, raw);
    if (parsed === undefined) {
      throw new BaseConfigError(`environment variable ${name}: ${typeErrorMessage(definition)}`);
    }
    values[definition.key] = parsed;
  }

  const secretArn = nonEmpty(env[ENV.apiKeysSecretArn]);
  if (secretArn !== undefined) {
    let secret: string | undefined;
    try {
      secret = await (options.fetchSecret ?? secretsExtensionFetcher({ env }))(secretArn);
    } catch (error) {
      // The extension's errors say what failed (a status, a timeout) and never quote a body. Not
      // reading the secret is an outage of a dependency (503, retried), not a bad configuration.
      const reason =
        error instanceof SecretsExtensionError ? error.message : error instanceof Error ? error.name : 'unknown error';
      throw new ApiKeysSecretUnavailableError(
        `could not read the secret named by ${ENV.apiKeysSecretArn} (${reason})`,
        {
          cause: error,
        },
      );
    }
    if (secret === undefined || secret.trim() === '') {
      throw new BaseConfigError(`the secret named by ${ENV.apiKeysSecretArn} has no string value`);
    }
    values.api_keys = secret.trim();
  }

  const problem = baseConfigProblem(values);
  if (problem !== undefined) throw new BaseConfigError(problem);
  return Object.freeze(values);
}

/**
 * How long a loaded base config is used before it is loaded again: the bound on how long a base
 * API key keeps working after it was rotated out of the secret (the extension's own cache is off,
 * lib/constructs/service-function.ts, so each load reads Secrets Manager).
 */
export const BASE_CONFIG_MAX_AGE_MS = 5 * 60_000;

let cached: { readonly config: Promise<ConfigValues>; readonly loadedAt: number } | undefined;
let testOptions: LoadBaseConfigOptions | undefined;

/**
 * The base config, loaded at most {@link BASE_CONFIG_MAX_AGE_MS} ago (one load shared by the
 * callers meanwhile). A failed load is not kept: the next call tries again, so a transient
 * Secrets Manager error does not disable a warm function for good; and a copy past its age is
 * never used instead (a failed reload answers 503 — ApiKeysSecretUnavailableError — rather than
 * keep a key that may have been rotated out). Called while handling a request, never at module
 * load: the secrets extension answers during invocations only.
 */
export function getBaseConfig(): Promise<ConfigValues> {
  const now = (testOptions?.now ?? Date.now)();
  if (!cached || now - cached.loadedAt >= BASE_CONFIG_MAX_AGE_MS) {
    const loading = loadBaseConfig(testOptions);
    const entry = { config: loading, loadedAt: now };
    cached = entry;
    loading.catch(() => {
      if (cached === entry) cached = undefined;
    });
  }
  return cached.config;
}

/**
 * Forgets the kept base config; `options` (env, file, secret fetcher, clock) apply to later loads.
 * @internal Exported for the tests, which load the base configuration again after changing the environment.
 */
export function resetBaseConfigForTests(options?: LoadBaseConfigOptions): void {
  cached = undefined;
  testOptions = options;
}
