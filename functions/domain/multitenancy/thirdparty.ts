import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { jsonBytes, jsonShapeProblem, STORABLE_NUMBER_RULE } from '#functions/shared/storable.js';
import type { ProviderConfig } from './tenant.js';

/**
 * Deepest provider configuration (the `config` object is level 1). Providers are stored as
 * DynamoDB maps inside the tenant's item, which holds at most 32 levels; real configurations use
 * four or five.
 */
const MAX_PROVIDER_DEPTH = 16;

/**
 * Largest total of a tenant's provider configurations (their JSON, UTF-8 bytes): with the
 * coreConfig they share the tenant's 400 KB DynamoDB item, where they take at most 1.5 times their
 * JSON size. Dozens of providers with SAML certificates fit.
 */
const MAX_PROVIDERS_BYTES = 131_072;

function invalid(message: string): never {
  throw new BadRequestError(`Invalid third party config: ${message}`);
}

const nonEmptyString = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/**
 * Validates and normalises one third-party provider configuration (docs/reference-behaviour.md "Third-party provider configuration"). With
 * `skipValidation` the provider-specific checks are skipped; the structural ones always apply.
 */
export function validateProviderConfig(
  config: Readonly<Record<string, unknown>>,
  skipValidation: boolean,
): ProviderConfig {
  const shape = jsonShapeProblem(config, MAX_PROVIDER_DEPTH);
  if (shape === 'depth') invalid(`config is nested too deeply. Max depth is ${MAX_PROVIDER_DEPTH}.`);
  if (shape === 'number') invalid(`numbers in config must be ${STORABLE_NUMBER_RULE}`);
  if (shape === 'emptyKey') invalid('config cannot contain an empty key');
  const rawId = config.thirdPartyId;
  if (rawId !== undefined && rawId !== null && typeof rawId !== 'string') {
    throw new BadRequestError(invalidFieldMessage('thirdPartyId'));
  }
  const thirdPartyId = typeof rawId === 'string' ? rawId.trim() : '';
  if (thirdPartyId === '') invalid('thirdPartyId cannot be null or empty');

  const clients = config.clients;
  if (clients !== undefined && clients !== null && !Array.isArray(clients)) {
    throw new BadRequestError(invalidFieldMessage('clients'));
  }
  const clientList = (Array.isArray(clients) ? clients : []) as unknown[];
  const clientTypes = new Set<string | undefined>();
  for (const client of clientList) {
    if (client === null || typeof client !== 'object' || Array.isArray(client)) {
      throw new BadRequestError(invalidFieldMessage('clients'));
    }
    const c = client as Record<string, unknown>;
    const clientType = typeof c.clientType === 'string' ? c.clientType : undefined;
    // Two clients without a clientType count as duplicates, as in the reference.
    if (clientTypes.has(clientType)) invalid('Duplicate clientType was specified in the clients list.');
    clientTypes.add(clientType);
    if (c.clientId === undefined || c.clientId === null) invalid('clientId cannot be null');
    if (Array.isArray(c.scope) && c.scope.some((s) => s === null)) invalid('scope array cannot contain a null');
    if (!skipValidation) validateClientForProvider(thirdPartyId, c);
  }
  return { ...config, thirdPartyId };
}

function validateClientForProvider(thirdPartyId: string, client: Record<string, unknown>): void {
  const additional = (client.additionalConfig ?? {}) as Record<string, unknown>;
  if (thirdPartyId.startsWith('apple')) {
    if (!['keyId', 'teamId', 'privateKey'].every((k) => nonEmptyString(additional[k]))) {
      invalid(
        'a non empty string value must be specified for keyId, teamId and privateKey in the additionalConfig for Apple provider',
      );
    }
  } else if (thirdPartyId.startsWith('google-workspaces')) {
    if (additional.hd !== undefined && !nonEmptyString(additional.hd)) {
      invalid('hd in additionalConfig must be a non empty string value');
    }
  } else if (thirdPartyId.startsWith('boxy-saml')) {
    if (additional.boxyURL !== undefined && !nonEmptyString(additional.boxyURL)) {
      invalid('a non empty string value must be specified for boxyURL in the additionalConfig for Boxy SAML provider');
    }
  }
}

/** Refuses a tenant's provider list larger than {@link MAX_PROVIDERS_BYTES} (checked before it is stored). */
export function checkProvidersSize(providers: readonly ProviderConfig[]): void {
  if (jsonBytes(providers) > MAX_PROVIDERS_BYTES) {
    invalid(`the providers of a tenant are too large. Max size is ${MAX_PROVIDERS_BYTES} bytes.`);
  }
}
