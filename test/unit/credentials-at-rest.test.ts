import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apiKeyDigestsHex,
  comparableConfigValue,
  formatSealedConfigValue,
  secretDigestHex,
} from '#functions/config/credential-values.js';
import {
  presentCoreConfig,
  presentProviderSecrets,
  resolveProviderSecretUpdate,
  resolveSecretUpdate,
  storedApiKeys,
} from '#functions/config/index.js';
import { mapProviderSecrets } from '#functions/config/provider-secrets.js';
import { credentialFingerprint } from '#functions/contract/credential-fingerprints.js';
import { type DataKeyProvider, type KeyContext, UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { checkApiKey } from '#functions/shared/api-keys.js';
import { BadRequestError } from '#functions/shared/errors.js';
import {
  Envelope,
  openWith,
  SEALING_KEY_MAX_AGE_MS,
  SEALING_KEY_MAX_USES,
} from '#functions/storage/crypto/envelope.js';
import { createLocalKeyProvider } from '#functions/storage/crypto/local-keys.js';
import { joinCredentials, splitCredentials } from '#functions/storage/staging/credentials.js';

const CONTEXT: KeyContext = { purpose: 'staged-credentials', appId: 'shop' };
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

async function reason(run: () => Promise<unknown> | unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof UnreadableSecretError) return error.reason;
    throw error;
  }
  return 'opened';
}

/** Import users of any shape the validator produces, credentials or not. */
const importUser = fc.record({
  id: fc.uuid(),
  userRoles: fc.constant([]),
  totpDevices: fc.array(
    fc.record({ secretKey: fc.string(), period: fc.integer({ min: 1 }), skew: fc.nat(), deviceName: fc.string() }),
    { maxLength: 3 },
  ),
  loginMethods: fc.array(
    fc.oneof(
      fc.record(
        {
          recipeId: fc.constant('emailpassword'),
          email: fc.string(),
          passwordHash: fc.string(),
          hashingAlgorithm: fc.constant('BCRYPT'),
          plainTextPassword: fc.string(),
          tenantIds: fc.constant(['public']),
        },
        { requiredKeys: ['recipeId', 'email', 'tenantIds'] },
      ),
      fc.record({
        recipeId: fc.constant('passwordless'),
        phoneNumber: fc.string(),
        tenantIds: fc.constant(['public']),
      }),
    ),
    { minLength: 1, maxLength: 4 },
  ),
}) as unknown as fc.Arbitrary<ImportUser>;

describe('staged credential fields', () => {
  it('come out of the clear user whole and go back in exactly (property)', () => {
    fc.assert(
      fc.property(importUser, (user) => {
        const { user: clear, credentials } = splitCredentials(user);
        const text = JSON.stringify(clear);
        expect(text).not.toMatch(/"(passwordHash|plainTextPassword|secretKey)"/);
        expect(credentials === undefined ? user : joinCredentials(clear, credentials)).toEqual(user);
        // Nothing but the credentials moved.
        expect(clear.loginMethods.map((lm) => (lm as { email?: string }).email)).toEqual(
          user.loginMethods.map((lm) => (lm as { email?: string }).email),
        );
      }),
    );
  });
});

describe('the envelope (AES-256-GCM under a provider data key)', () => {
  const provider = createLocalKeyProvider(randomBytes(32));

  it('opens what it sealed, and nothing altered: any flipped byte, another binding (property)', async () => {
    const envelope = new Envelope(provider);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.string(), fc.nat(), async (data, aad, at) => {
        const key = await envelope.sealingKey(CONTEXT, 1);
        const box = key.seal(data, aad);
        const dataKey = await envelope.openingKey(key.wrapped, CONTEXT);
        expect(new Uint8Array(openWith(dataKey, box, aad))).toEqual(data);
        const flipped = Buffer.from(box);
        flipped[at % flipped.length]! ^= 0x80;
        expect(await reason(() => openWith(dataKey, flipped, aad))).toBe('altered');
        expect(await reason(() => openWith(dataKey, box, `${aad}x`))).toBe('altered');
      }),
      { numRuns: 200 },
    );
  });

  it('unwraps a data key only for its own context and its own local key', async () => {
    const { wrapped } = await provider.generateDataKey(CONTEXT);
    expect((await provider.unwrapDataKey(wrapped, CONTEXT)).length).toBe(32);
    expect(await reason(() => provider.unwrapDataKey(wrapped, { ...CONTEXT, appId: 'other' }))).toBe('altered');
    expect(await reason(() => provider.unwrapDataKey(wrapped, { ...CONTEXT, purpose: 'app-secret' }))).toBe('altered');
    expect(await reason(() => createLocalKeyProvider(randomBytes(32)).unwrapDataKey(wrapped, CONTEXT))).toBe(
      'other-key',
    );
    const kmsWrapped = Buffer.concat([Buffer.of(0x4b), randomBytes(184)]);
    expect(await reason(() => provider.unwrapDataKey(kmsWrapped, CONTEXT))).toBe('other-key');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 9, max: wrapped.length - 1 }), async (at) => {
        const flipped = Buffer.from(wrapped);
        flipped[at]! ^= 0x01;
        expect(await reason(() => provider.unwrapDataKey(flipped, CONTEXT))).toBe('altered');
      }),
    );
  });

  it('reuses a sealing key per app for a bounded time and number of uses, and unwraps each wrapped key once', async () => {
    let now = 0;
    const calls = { generate: 0, unwrap: 0 };
    const counting: DataKeyProvider = {
      generateDataKey: (c) => {
        calls.generate++;
        return provider.generateDataKey(c);
      },
      unwrapDataKey: (w, c) => {
        calls.unwrap++;
        return provider.unwrapDataKey(w, c);
      },
    };
    const envelope = new Envelope(counting, () => now);
    const first = await envelope.sealingKey(CONTEXT, 10_000);
    expect((await envelope.sealingKey(CONTEXT, 10_000)).id).toBe(first.id);
    expect((await envelope.sealingKey({ ...CONTEXT, appId: 'other' }, 1)).id).not.toBe(first.id);
    expect(calls.generate).toBe(2);
    // Too many uses, then too old: a fresh data key each time.
    const full = await envelope.sealingKey(CONTEXT, SEALING_KEY_MAX_USES);
    expect(full.id).not.toBe(first.id);
    now += SEALING_KEY_MAX_AGE_MS;
    expect((await envelope.sealingKey(CONTEXT, 1)).id).not.toBe(full.id);
    expect(calls.generate).toBe(4);
    for (let i = 0; i < 5; i++) await envelope.openingKey(first.wrapped, CONTEXT);
    expect(calls.unwrap).toBe(1);
    // A failed unwrap is not cached as an answer.
    const other = { ...CONTEXT, appId: 'moved' };
    expect(await reason(() => envelope.openingKey(first.wrapped, other))).toBe('altered');
    expect(await reason(() => envelope.openingKey(first.wrapped, other))).toBe('altered');
    expect(calls.unwrap).toBe(3);
  });

  it('seals a single value with its wrapped key inline, bound to its context and place', async () => {
    const envelope = new Envelope(provider);
    const sealed = await envelope.sealInline(Buffer.from('signer'), CONTEXT, 'app-secret/shop');
    expect((await envelope.openInline(sealed, CONTEXT, 'app-secret/shop')).toString()).toBe('signer');
    expect(await reason(() => envelope.openInline(sealed, CONTEXT, 'app-secret/other'))).toBe('altered');
    expect(await reason(() => envelope.openInline(sealed.subarray(0, 3), CONTEXT, 'app-secret/shop'))).toBe('altered');
  });
});

describe('credentials in coreConfig', () => {
  const KEY_A = 'first-api-key-0123456789';
  const KEY_B = 'second-api-key-0123456789';

  it('stores API keys as digests whatever form they come in, and shows fingerprints', () => {
    const stored = storedApiKeys(` ${KEY_A} ,${KEY_B}`);
    expect(stored).toBe(`sha256:${sha256(KEY_A).toString('hex')},sha256:${sha256(KEY_B).toString('hex')}`);
    expect(storedApiKeys(stored)).toBe(stored);
    expect(apiKeyDigestsHex(stored)).toEqual(apiKeyDigestsHex(`${KEY_A},${KEY_B}`));
    const sealed = formatSealedConfigValue(sha256('c2lnbmVy').toString('hex'), Buffer.from('box'));
    expect(
      presentCoreConfig({ api_keys: stored, firebase_password_hashing_signer_key: sealed, mfa_enabled: true }),
    ).toEqual({
      api_keys: `${credentialFingerprint(KEY_A)},${credentialFingerprint(KEY_B)}`,
      firebase_password_hashing_signer_key: credentialFingerprint('c2lnbmVy'),
      mfa_enabled: true,
    });
    // A value stored in clear (before sealing) is shown the same way.
    expect(presentCoreConfig({ firebase_password_hashing_signer_key: 'c2lnbmVy' })).toEqual({
      firebase_password_hashing_signer_key: credentialFingerprint('c2lnbmVy'),
    });
    expect(credentialFingerprint('c2lnbmVy')).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(secretDigestHex(sealed)).toBe(secretDigestHex('c2lnbmVy'));
    expect(comparableConfigValue('api_keys', stored)).toBe(comparableConfigValue('api_keys', `${KEY_A}, ${KEY_B}`));
  });

  it('takes back only the stored value’s own fingerprint as "unchanged"; any other fingerprint is a 400 (property)', () => {
    const stored = { api_keys: storedApiKeys(KEY_A), firebase_password_hashing_signer_key: 'c2lnbmVy' };
    const shown = presentCoreConfig(stored);
    expect(resolveSecretUpdate(stored, { ...shown, mfa_enabled: true }, 'P: ')).toEqual({ mfa_enabled: true });
    expect(resolveSecretUpdate(stored, { api_keys: KEY_B }, 'P: ')).toEqual({ api_keys: KEY_B });
    fc.assert(
      fc.property(
        fc.constantFrom('api_keys', 'firebase_password_hashing_signer_key'),
        fc.string(),
        fc.constantFrom('sha256:', 'sealed:v1:'),
        fc.string(),
        (key, before, marker, after) => {
          const value = `${before}${marker}${after}`;
          fc.pre(value.replace(/\s/g, '') !== String(shown[key]).replace(/\s/g, ''));
          expect(() => resolveSecretUpdate(stored, { [key]: value }, 'P: ')).toThrow(BadRequestError);
          expect(() => resolveSecretUpdate({}, { [key]: value }, 'P: ')).toThrow(
            `P: ${key} is a fingerprint (sha256:…) that does not match the stored value; send the key itself`,
          );
        },
      ),
    );
  });

  it('checks a presented API key against the configured digests only', () => {
    const digests = [sha256(KEY_A), sha256(KEY_B)];
    expect(() => checkApiKey(digests, { 'api-key': KEY_B })).not.toThrow();
    expect(() => checkApiKey(digests, { authorization: `Bearer ${KEY_A}` })).not.toThrow();
    expect(() => checkApiKey(digests, { 'api-key': sha256(KEY_A).toString('hex') })).toThrow('Invalid API key');
    expect(() => checkApiKey(digests, { 'api-key': credentialFingerprint(KEY_A) })).toThrow('Invalid API key');
    expect(() => checkApiKey([], {})).not.toThrow();
  });
});

describe('third-party provider secrets', () => {
  /** Providers of any shape validation lets through, secrets or not. */
  const client = fc.record(
    {
      clientType: fc.constantFrom('web', 'mobile', 'desktop'),
      clientId: fc.string(),
      clientSecret: fc.oneof(fc.string({ minLength: 1 }), fc.integer()),
      scope: fc.array(fc.string(), { maxLength: 2 }),
      additionalConfig: fc.oneof(
        fc.record(
          { privateKey: fc.string({ minLength: 1 }), boxyAPIKey: fc.string({ minLength: 1 }), keyId: fc.string() },
          { requiredKeys: [] },
        ),
        fc.constant('not an object'),
      ),
    },
    { requiredKeys: ['clientId'] },
  );
  const provider = fc.record({
    thirdPartyId: fc.constantFrom('google', 'apple', 'boxy-saml'),
    name: fc.string(),
    clients: fc.uniqueArray(client, { maxLength: 3, selector: (c) => c.clientType }),
  });
  const secretsOf = (p: Readonly<Record<string, unknown>>) => {
    const values: string[] = [];
    mapProviderSecrets(p, (value) => {
      values.push(value);
      return value;
    });
    return values;
  };

  it('names exactly the string clientSecret, privateKey and boxyAPIKey values; nothing else changes (property)', () => {
    fc.assert(
      fc.property(provider, (p) => {
        const expected = p.clients.flatMap((c) => [
          ...(typeof c.clientSecret === 'string' ? [c.clientSecret] : []),
          ...(typeof c.additionalConfig === 'object'
            ? [c.additionalConfig.privateKey, c.additionalConfig.boxyAPIKey].filter((v) => typeof v === 'string')
            : []),
        ]);
        expect(secretsOf(p)).toEqual(expected);
        const marked = mapProviderSecrets(p, (value) => `<${value}>`);
        expect(secretsOf(marked)).toEqual(expected.map((v) => `<${v}>`));
        // Everything but the secrets is as it was.
        const strip = (q: typeof p) => mapProviderSecrets(q, () => undefined);
        expect(strip(marked)).toEqual(strip(p));
        expect(mapProviderSecrets(p, (value) => value)).toBe(p);
      }),
    );
  });

  it('shows fingerprints, from the stored digest or the clear value alike (property)', () => {
    fc.assert(
      fc.property(provider, (p) => {
        const sealed = mapProviderSecrets(p, (value) =>
          formatSealedConfigValue(sha256(value).toString('hex'), Buffer.from('box')),
        );
        const shown = presentProviderSecrets(p);
        expect(presentProviderSecrets(sealed)).toEqual(shown);
        expect(secretsOf(shown)).toEqual(secretsOf(p).map(credentialFingerprint));
      }),
    );
  });

  it('keeps a stored secret sent back as its fingerprint or stored form in the same slot; any other such value is a 400 (property)', () => {
    fc.assert(
      fc.property(provider, fc.string({ minLength: 1 }), (stored, other) => {
        const sealed = mapProviderSecrets(stored, (value) =>
          formatSealedConfigValue(sha256(value).toString('hex'), Buffer.from(value)),
        );
        for (const kept of [sealed, stored]) {
          expect(resolveProviderSecretUpdate(kept, presentProviderSecrets(stored))).toEqual(kept);
          expect(resolveProviderSecretUpdate(kept, kept)).toEqual(kept);
          // Secrets themselves pass as they are.
          expect(resolveProviderSecretUpdate(kept, stored)).toEqual(stored);
        }
        if (secretsOf(stored).length === 0) return;
        const wrong = mapProviderSecrets(stored, () => credentialFingerprint(`${other}-not-stored`));
        expect(() => resolveProviderSecretUpdate(sealed, wrong)).toThrow(BadRequestError);
        expect(() => resolveProviderSecretUpdate(undefined, presentProviderSecrets(stored))).toThrow(
          /^Invalid third party config: (clientSecret|privateKey|boxyAPIKey) is a fingerprint \(sha256:…\) that does not match the stored value; send the secret itself$/,
        );
      }),
    );
  });
});
