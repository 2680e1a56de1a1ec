/**
 * The base config: registry defaults ← `base-config.json` ← environment variables ← the API-keys
 * secret. Loaded once per process; an invalid value is a startup error, never a silent default.
 * Values are never put in messages or logs (they may be API keys).
 */
import { ENV } from '#functions/shared/env.js';
import baseConfigFile from './base-config.json' with { type: 'json' };
import type { ConfigValues } from './layers.js';
import { CONFIG_KEYS, envVariableName } from './registry.js';
import { SecretsExtensionError, secretsExtensionFetcher } from './secrets-extension.js';
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
export type SecretFetcher = (secretArn: string) => Promise<string | undefined>;

export interface LoadBaseConfigOptions {
  /** Defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Defaults to the checked-in `base-config.json`. */
  readonly file?: unknown;
  /**
   * Defaults to asking the AWS Parameters and Secrets Lambda Extension (functions/config/secrets-extension.ts),
   * which makes the `GetSecretValue` call with the function's role: no SDK client in the bundle.
   */
  readonly fetchSecret?: SecretFetcher;
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
      // The extension's errors say what failed (a status, a timeout) and never quote a body.
      const reason =
        error instanceof SecretsExtensionError ? error.message : error instanceof Error ? error.name : 'unknown error';
      throw new BaseConfigError(`could not read the secret named by ${ENV.apiKeysSecretArn} (${reason})`, {
        cause: error,
      });
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

let basePromise: Promise<ConfigValues> | undefined;
let testOptions: LoadBaseConfigOptions | undefined;

/**
 * The base config, loaded once per process (the promise is memoised, so the API-keys secret is
 * fetched once). A failed load is not memoised: the next call tries again, so a transient Secrets
 * Manager error does not disable a warm function for good. Called while handling a request, never
 * at module load: the secrets extension answers during invocations only.
 */
export function getBaseConfig(): Promise<ConfigValues> {
  if (!basePromise) {
    const loading = loadBaseConfig(testOptions);
    basePromise = loading;
    loading.catch(() => {
      if (basePromise === loading) basePromise = undefined;
    });
  }
  return basePromise;
}

/** Forgets the memoised base config; `options` (env, file, secret fetcher) apply to later loads. */
export function resetBaseConfigForTests(options?: LoadBaseConfigOptions): void {
  basePromise = undefined;
  testOptions = options;
}
