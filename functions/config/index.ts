/**
 * Configuration: base (file + environment) → app overrides → tenant overrides.
 * This is the only module that reads configuration; everything else asks `resolveEffectiveConfig`.
 *
 * NOTE: interim implementation — the full key registry and validation land with the config work.
 */
import { ENV, optionalEnv } from '#functions/shared/env.js';

export type ConfigValues = Readonly<Record<string, unknown>>;

export interface EffectiveConfig {
  /** Every key with its resolved value (tenant → app → base). */
  readonly values: ConfigValues;
  readonly apiKeys: readonly string[];
  readonly passwordHashingAlg: 'BCRYPT' | 'ARGON2';
  readonly bcryptLogRounds: number;
  readonly argon2: { readonly iterations: number; readonly memoryKb: number; readonly parallelism: number };
  readonly firebaseSignerKey: string | undefined;
  readonly accountLinkingEnabled: boolean;
  readonly mfaEnabled: boolean;
  readonly maxCdiVersion: string | undefined;
  readonly minCdiVersion: string | undefined;
}

let basePromise: Promise<ConfigValues> | undefined;

export function getBaseConfig(): Promise<ConfigValues> {
  basePromise ??= Promise.resolve({ api_keys: optionalEnv(ENV.apiKeys) ?? null });
  return basePromise;
}

export function resetBaseConfigForTests(): void {
  basePromise = undefined;
}

export function resolveEffectiveConfig(
  base: ConfigValues,
  appOverrides: ConfigValues | undefined,
  tenantOverrides: ConfigValues | undefined,
): EffectiveConfig {
  const values: Record<string, unknown> = { ...base, ...(appOverrides ?? {}), ...(tenantOverrides ?? {}) };
  const keys = typeof values.api_keys === 'string' ? values.api_keys : '';
  return {
    values,
    apiKeys: keys
      .replace(/\s/g, '')
      .split(',')
      .filter((k) => k !== ''),
    passwordHashingAlg: values.password_hashing_alg === 'ARGON2' ? 'ARGON2' : 'BCRYPT',
    bcryptLogRounds: 11,
    argon2: { iterations: 1, memoryKb: 87795, parallelism: 2 },
    firebaseSignerKey:
      typeof values.firebase_password_hashing_signer_key === 'string'
        ? values.firebase_password_hashing_signer_key
        : undefined,
    accountLinkingEnabled: values.account_linking_enabled === true,
    mfaEnabled: values.mfa_enabled === true,
    maxCdiVersion:
      typeof values.supertokens_max_cdi_version === 'string' ? values.supertokens_max_cdi_version : undefined,
    minCdiVersion:
      typeof values.supertokens_min_cdi_version === 'string' ? values.supertokens_min_cdi_version : undefined,
  };
}

/** stored ∪ update; a key whose update value is `null` is removed. */
export function mergeCoreConfig(
  stored: ConfigValues | undefined,
  update: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(stored ?? {}) };
  for (const [k, v] of Object.entries(update)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

export interface ValidateCoreConfigInput {
  /** The merged overrides about to be stored. */
  readonly merged: ConfigValues;
  /** 'app' = the app's public tenant (app-wide keys allowed); 'tenant' = any other tenant. */
  readonly level: 'app' | 'tenant';
  /** For level 'tenant': the app's own (public tenant) overrides, to refuse differing app-wide keys. */
  readonly appOverrides?: ConfigValues | undefined;
  /** For level 'app': the overrides of the app's other tenants, to refuse differing app-wide keys. */
  readonly otherTenantOverrides?: readonly ConfigValues[] | undefined;
}

/** Throws BadRequestError(`Invalid core config: …`) or a base-only-key message. */
export function validateCoreConfig(_input: ValidateCoreConfigInput): void {}
