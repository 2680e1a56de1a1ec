/**
 * Credentials in a stored tenant record (forms: functions/config/credential-values.ts and
 * provider-secrets.ts): API keys become their digests, and the Firebase signer key and the
 * third-party providers' secrets are sealed, on every write of a tenant record — so a record
 * written before credentials were sealed is converted the next time it is written. A sealed signer
 * key is opened only where it is needed (sign-in of a Firebase-hashed user), sealed provider
 * secrets only for the tenant reads the SDK makes (tenant get and list).
 */
import {
  API_KEYS_KEY,
  type ConfigSecret,
  formatSealedConfigValue,
  hasSealedProviderSecrets,
  mapProviderSecretsAsync,
  type ProviderSecretSlot,
  parseSealedConfigValue,
  SEALED_CONFIG_KEYS,
  SIGNER_KEY_KEY,
  sha256Hex,
  storedApiKeys,
} from '#functions/config/index.js';
import { type KeyContext, UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import type { Envelope } from './crypto/envelope.js';

const context = (appId: string): KeyContext => ({ purpose: 'app-secret', appId });
const associatedData = (appId: string, key: string) => `app-secret\u0000${appId}\u0000${key}`;

/** A coreConfig with its credentials in their stored forms (values already stored so are kept). */
export async function encodeConfigSecrets(
  appId: string,
  coreConfig: Readonly<Record<string, unknown>>,
  envelope: () => Envelope,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { ...coreConfig };
  const apiKeys = coreConfig[API_KEYS_KEY];
  if (typeof apiKeys === 'string') out[API_KEYS_KEY] = storedApiKeys(apiKeys);
  for (const key of SEALED_CONFIG_KEYS) {
    const value = coreConfig[key];
    // A blank key configures nothing (imports refuse Firebase hashes as without one): nothing to seal.
    if (typeof value !== 'string' || value.trim() === '' || parseSealedConfigValue(value)) continue;
    const sealed = await envelope().sealInline(Buffer.from(value, 'utf8'), context(appId), associatedData(appId, key));
    out[key] = formatSealedConfigValue(sha256Hex(value), sealed);
  }
  return out;
}

/**
 * The signer key in clear: opened when sealed (for the app it is bound to), as is when stored in
 * clear. Throws UnreadableSecretError when it can never be opened.
 */
export function openSignerKey(secret: ConfigSecret, envelope: () => Envelope): Promise<string> {
  return openConfigSecret(SIGNER_KEY_KEY, secret, envelope);
}

/** A sealed coreConfig credential (`key`, one of SEALED_CONFIG_KEYS) in clear, as {@link openSignerKey}. */
export async function openConfigSecret(key: string, secret: ConfigSecret, envelope: () => Envelope): Promise<string> {
  const sealed = parseSealedConfigValue(secret.stored);
  if (!sealed) return secret.stored;
  const appId = secret.appId ?? '';
  const clear = await envelope().openInline(sealed.sealed, context(appId), associatedData(appId, key));
  return clear.toString('utf8');
}

/** Where a provider's secret is stored: what its sealed value is bound to. */
export interface ProviderPlace {
  readonly appId: string;
  readonly tenantId: string;
  readonly thirdPartyId: string;
}

const providerSecretData = (place: ProviderPlace, slot: ProviderSecretSlot) =>
  ['provider-secret', place.appId, place.tenantId, place.thirdPartyId, slot.clientType ?? '', slot.field].join(
    '\u0000',
  );

/**
 * A provider with its secrets in their stored form: each value in clear is sealed (values already
 * sealed are kept as they are), bound to its app, tenant, provider, client type and field.
 */
export async function sealProviderSecrets<P extends Readonly<Record<string, unknown>>>(
  place: ProviderPlace,
  provider: P,
  envelope: () => Envelope,
): Promise<P> {
  return mapProviderSecretsAsync(provider, async (value, slot) => {
    if (parseSealedConfigValue(value)) return value;
    const sealed = await envelope().sealInline(
      Buffer.from(value, 'utf8'),
      context(place.appId),
      providerSecretData(place, slot),
    );
    return formatSealedConfigValue(sha256Hex(value), sealed);
  });
}

/**
 * A provider with its secrets in clear: sealed values opened (values stored in clear pass as they
 * are). A value that can never be opened (altered, moved, sealed under a key this core does not
 * have, or refused by the key service) is left out and reported through `unreadable`, so the rest
 * of the provider is still served; a key service that does not answer throws (503).
 */
export async function openProviderSecrets<P extends Readonly<Record<string, unknown>>>(
  place: ProviderPlace,
  provider: P,
  envelope: () => Envelope,
  unreadable: (slot: ProviderSecretSlot, reason: string) => void,
): Promise<P> {
  if (!hasSealedProviderSecrets(provider)) return provider;
  return mapProviderSecretsAsync(provider, async (value, slot) => {
    const sealed = parseSealedConfigValue(value);
    if (!sealed) return value;
    try {
      const clear = await envelope().openInline(sealed.sealed, context(place.appId), providerSecretData(place, slot));
      return clear.toString('utf8');
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      unreadable(slot, error.reason);
      return undefined;
    }
  });
}
