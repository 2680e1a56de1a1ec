/**
 * The credentials inside a third-party provider configuration, and their forms (docs/credentials.md):
 *
 * - which fields they are: a client's `clientSecret`, and in its `additionalConfig` Apple's
 *   `privateKey` and the Boxy SAML `boxyAPIKey` (the SDK's dashboard stores that one there) —
 *   string values only;
 * - stored sealed, in the same form as the Firebase signer key (credential-values.ts):
 *   `sealed:v1:<SHA-256 hex of the value>:<Base64 of the sealed bytes>`, sealed and opened in
 *   functions/storage/tenant-credentials.ts;
 * - shown as fingerprints (`sha256:<first 16 hex>`) where responses must not carry them (the app
 *   list), in clear where the SDK reads them (tenant get and list);
 * - a fingerprint, or the stored form, sent back in a provider update keeps the stored value of the
 *   same slot (same client type, same field); any other value of that shape is refused.
 *
 * A slot is a client (by its `clientType`: unique within a provider) and a field: what a sealed
 * value is bound to, with the app, tenant and provider (storage's associated data).
 */

import { credentialFingerprint, fingerprintOfDigest } from '#functions/contract/credential-fingerprints.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { parseSealedConfigValue } from './credential-values.js';

/** The secret fields of a provider's client: at the client's top level, or in its `additionalConfig`. */
const CLIENT_SECRET_FIELDS = ['clientSecret'] as const;
const ADDITIONAL_CONFIG_SECRET_FIELDS = ['privateKey', 'boxyAPIKey'] as const;
type ProviderSecretField = (typeof CLIENT_SECRET_FIELDS)[number] | (typeof ADDITIONAL_CONFIG_SECRET_FIELDS)[number];

/** Where a secret sits in a provider: its client (by type) and its field. */
export interface ProviderSecretSlot {
  readonly clientType: string | undefined;
  readonly field: ProviderSecretField;
}

type Json = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A key naming a slot within one provider. */
const slotKey = (slot: ProviderSecretSlot) => `${slot.clientType ?? ''}\u0000${slot.field}`;

/**
 * `provider` with each string secret value replaced by `replace(value, slot)` (undefined removes
 * the field). Nothing else of the provider changes; a provider without clients, or with clients
 * that are not objects, is returned as it is.
 */
export function mapProviderSecrets<P extends Json>(
  provider: P,
  replace: (value: string, slot: ProviderSecretSlot) => string | undefined,
): P {
  const clients = provider.clients;
  if (!Array.isArray(clients)) return provider;
  let changed = false;
  const set = (target: Record<string, unknown>, field: string, value: string | undefined) => {
    if (value === undefined) delete target[field];
    else target[field] = value;
  };
  const mapped = clients.map((client: unknown) => {
    if (!isObject(client)) return client;
    const clientType = typeof client.clientType === 'string' ? client.clientType : undefined;
    const out: Record<string, unknown> = { ...client };
    let clientChanged = false;
    for (const field of CLIENT_SECRET_FIELDS) {
      const value = client[field];
      if (typeof value !== 'string') continue;
      const next = replace(value, { clientType, field });
      if (next !== value) {
        set(out, field, next);
        clientChanged = true;
      }
    }
    const additional = client.additionalConfig;
    if (isObject(additional)) {
      const extra: Record<string, unknown> = { ...additional };
      let extraChanged = false;
      for (const field of ADDITIONAL_CONFIG_SECRET_FIELDS) {
        const value = additional[field];
        if (typeof value !== 'string') continue;
        const next = replace(value, { clientType, field });
        if (next !== value) {
          set(extra, field, next);
          extraChanged = true;
        }
      }
      if (extraChanged) {
        out.additionalConfig = extra;
        clientChanged = true;
      }
    }
    if (!clientChanged) return client;
    changed = true;
    return out;
  });
  return changed ? { ...provider, clients: mapped } : provider;
}

/** {@link mapProviderSecrets} with an asynchronous replacement (all values replaced at once). */
export async function mapProviderSecretsAsync<P extends Json>(
  provider: P,
  replace: (value: string, slot: ProviderSecretSlot) => Promise<string | undefined>,
): Promise<P> {
  const pending: Promise<string | undefined>[] = [];
  mapProviderSecrets(provider, (value, slot) => {
    pending.push(replace(value, slot));
    return value;
  });
  if (pending.length === 0) return provider;
  const replaced = await Promise.all(pending);
  let next = 0;
  return mapProviderSecrets(provider, () => replaced[next++]);
}

/** Whether any secret value of the provider is stored sealed (opening it needs the credentials key). */
export function hasSealedProviderSecrets(provider: Json): boolean {
  let sealed = false;
  mapProviderSecrets(provider, (value) => {
    if (parseSealedConfigValue(value)) sealed = true;
    return value;
  });
  return sealed;
}

/** The fingerprint of a secret value, stored sealed (from its digest) or in clear. */
function fingerprintOf(value: string): string {
  const sealed = parseSealedConfigValue(value);
  return sealed ? fingerprintOfDigest(sealed.digestHex) : credentialFingerprint(value);
}

/** A provider as responses that must not carry its secrets show it: each secret as its fingerprint. */
export function presentProviderSecrets<P extends Json>(provider: P): P {
  return mapProviderSecrets(provider, fingerprintOf);
}

const STORED_OR_SHOWN = /^(?:sha256:|sealed:v1:)/;

/**
 * The secrets of a provider update, checked against the provider stored under the same id: a
 * value that is a fingerprint or a stored form is not a secret. When it is the fingerprint (or
 * the stored form) of the value stored in the same slot — a client writing back what it read — the
 * stored value is kept; otherwise 400. Other values pass as they are.
 */
export function resolveProviderSecretUpdate<P extends Json>(stored: Json | undefined, update: P): P {
  const storedValues = new Map<string, string>();
  if (stored) {
    mapProviderSecrets(stored, (value, slot) => {
      storedValues.set(slotKey(slot), value);
      return value;
    });
  }
  return mapProviderSecrets(update, (value, slot) => {
    if (!STORED_OR_SHOWN.test(value)) return value;
    const current = storedValues.get(slotKey(slot));
    if (current !== undefined && (value === current || value === fingerprintOf(current))) return current;
    throw new BadRequestError(
      `Invalid third party config: ${slot.field} is a fingerprint (sha256:…) that does not match the stored value; send the secret itself`,
    );
  });
}
