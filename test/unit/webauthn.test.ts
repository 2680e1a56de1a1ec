/**
 * The WebAuthn use cases without storage: how the verifier's outcomes are sorted into the
 * reference's statuses, on real attestations and assertions of the software authenticator and on
 * broken ones; the checks of a ceremony's settings; the request readers. With fast-check: any JSON
 * as a credential (or in any field of a real one) is answered with a status, never thrown; any
 * body is read or refused with a 400.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredCredential } from '#functions/domain/users/companions.js';
import type { WebauthnDeps } from '#functions/domain/webauthn/deps.js';
import type { GeneratedOptions } from '#functions/domain/webauthn/model.js';
import { registerOptions, signInOptions } from '#functions/domain/webauthn/options.js';
import {
  credentialRequest,
  registerOptionsRequest,
  signInOptionsRequest,
} from '#functions/domain/webauthn/requests.js';
import { verifyAssertion, verifyRegistration } from '#functions/domain/webauthn/verify.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { parseRequest } from '#functions/shared/request-schema.js';
import { FLAGS, SoftwareAuthenticator } from '../helpers/webauthn-authenticator.js';
import { RP } from '../helpers/webauthn-flows.js';

const NOW = 1_800_000_000_000;
const CHALLENGE = Buffer.alloc(32, 9).toString('base64url');

const options = (over: Partial<GeneratedOptions> = {}): GeneratedOptions => ({
  id: 'opts',
  tenantId: 'public',
  challenge: CHALLENGE,
  email: 'ada@example.com',
  relyingPartyId: RP.id,
  relyingPartyName: RP.name,
  origin: RP.origin,
  userVerification: 'preferred',
  userPresence: false,
  createdAt: NOW - 1_000,
  expiresAt: NOW + 60_000,
  ...over,
});

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

async function registered(auth = new SoftwareAuthenticator()) {
  const attestation = auth.create({ challenge: CHALLENGE, rp: { id: RP.id } }, RP.origin);
  const result = await verifyRegistration(options(), clone(attestation) as never, NOW);
  if (!('ok' in result)) throw new Error(JSON.stringify(result));
  const stored: StoredCredential = {
    id: result.credentialId,
    recipeUserId: 'u1',
    relyingPartyId: RP.id,
    publicKey: result.publicKey,
    counter: result.counter,
    transports: result.transports,
    createdAt: NOW,
    updatedAt: NOW,
  };
  return { auth, attestation, stored };
}

// The routes' schemas, read as the pipeline reads a body.
const parseCredentialInput = (body: unknown) => parseRequest(credentialRequest, body);
const parseRegisterOptions = (body: unknown) => parseRequest(registerOptionsRequest, body);
const parseSignInOptions = (body: unknown) => parseRequest(signInOptionsRequest, body);

describe('verifying an attestation', () => {
  it('accepts a real one and gives the passkey to store', async () => {
    const auth = new SoftwareAuthenticator();
    const attestation = auth.create({ challenge: CHALLENGE, rp: { id: RP.id } }, RP.origin);
    const result = await verifyRegistration(options(), clone(attestation) as never, NOW);
    expect(result).toMatchObject({ ok: true, credentialId: attestation.id, counter: 0, transports: ['internal'] });
  });

  it('sorts what goes wrong into the reference’s statuses', async () => {
    const auth = new SoftwareAuthenticator();
    const good = auth.create({ challenge: CHALLENGE, rp: { id: RP.id } }, RP.origin);
    const cases: [unknown, GeneratedOptions, string, RegExp | string][] = [
      [{ ...good, id: 5 }, options(), 'INVALID_CREDENTIALS_ERROR', 'credential id has to be a string'],
      [{ ...good, type: 7 }, options(), 'INVALID_CREDENTIALS_ERROR', 'credential type has to be a string'],
      [{ ...good, type: '' }, options(), 'INVALID_CREDENTIALS_ERROR', 'credential type is empty!'],
      [
        { ...good, rawId: undefined },
        options(),
        'INVALID_CREDENTIALS_ERROR',
        'credential rawId is missing or not a string',
      ],
      [
        { ...good, response: [] },
        options(),
        'INVALID_CREDENTIALS_ERROR',
        'credential response is missing or not an object',
      ],
      [
        { ...good, response: { ...good.response, clientDataJSON: 'a+b' } },
        options(),
        'INVALID_CREDENTIALS_ERROR',
        'credential response clientDataJSON is not base64url',
      ],
      [
        { ...good, response: { ...good.response, clientDataJSON: Buffer.from('{nope').toString('base64url') } },
        options(),
        'INVALID_CREDENTIALS_ERROR',
        /^clientDataJSON could not be decoded/,
      ],
      [
        { ...good, response: { ...good.response, transports: 'usb' } },
        options(),
        'INVALID_CREDENTIALS_ERROR',
        'credential response transports is not a list of strings',
      ],
      [good, options({ expiresAt: NOW - 1 }), 'INVALID_OPTIONS_ERROR', 'Options expired'],
      [
        good,
        options({ challenge: Buffer.alloc(32, 1).toString('base64url') }),
        'INVALID_AUTHENTICATOR_ERROR',
        /challenge/,
      ],
      [good, options({ origin: 'https://example.com' }), 'INVALID_AUTHENTICATOR_ERROR', /origin/],
      [good, options({ relyingPartyId: 'app.example.com' }), 'INVALID_AUTHENTICATOR_ERROR', /RP ID/],
      [{ ...good, rawId: `${good.id}A` }, options(), 'INVALID_AUTHENTICATOR_ERROR', /base64url/],
    ];
    for (const [credential, opts, status, reason] of cases) {
      const result = await verifyRegistration(opts, clone(credential) as never, NOW);
      expect(result, JSON.stringify(credential).slice(0, 80)).toMatchObject({ status });
      expect((result as { reason: string }).reason).toMatch(reason);
    }
  });

  it('asks for the flags only where the options do', async () => {
    const auth = new SoftwareAuthenticator();
    const absent = auth.create({ challenge: CHALLENGE, rp: { id: RP.id } }, RP.origin, { flags: FLAGS.AT });
    expect(await verifyRegistration(options(), clone(absent) as never, NOW)).toMatchObject({ ok: true });
    expect(await verifyRegistration(options({ userPresence: true }), clone(absent) as never, NOW)).toMatchObject({
      status: 'INVALID_AUTHENTICATOR_ERROR',
      reason: 'User presence was required, but user was not present',
    });
    const present = auth.create({ challenge: CHALLENGE, rp: { id: RP.id } }, RP.origin, { flags: FLAGS.AT | FLAGS.UP });
    expect(
      await verifyRegistration(options({ userVerification: 'required' }), clone(present) as never, NOW),
    ).toMatchObject({
      status: 'INVALID_AUTHENTICATOR_ERROR',
      reason: 'User verification was required, but user could not be verified',
    });
  });

  it('answers any JSON as a credential, or in any field of a real one, with a status', async () => {
    const auth = new SoftwareAuthenticator();
    const good = auth.create({ challenge: CHALLENGE, rp: { id: RP.id } }, RP.origin);
    const statuses = new Set(['INVALID_CREDENTIALS_ERROR', 'INVALID_AUTHENTICATOR_ERROR']);
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.jsonValue()), async (credential) => {
        const result = await verifyRegistration(options(), credential, NOW);
        expect(statuses.has((result as { status: string }).status)).toBe(true);
      }),
      { numRuns: 300 },
    );
    const fields = ['id', 'rawId', 'type', 'response', 'clientDataJSON', 'attestationObject', 'transports'] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), fc.jsonValue(), async (field, value) => {
        const credential = clone(good) as unknown as Record<string, any>;
        if (field in credential) credential[field] = value;
        else credential.response[field] = value;
        const result = await verifyRegistration(options(), credential, NOW);
        if (!('ok' in result)) expect(statuses.has(result.status)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('verifying an assertion', () => {
  it('accepts a real one and gives the new counter; refuses what the verifier refuses', async () => {
    const { auth, stored } = await registered();
    const assertion = auth.get(stored.id, { challenge: CHALLENGE, relyingPartyId: RP.id }, RP.origin);
    expect(await verifyAssertion(options(), clone(assertion) as never, stored, NOW)).toEqual({
      ok: true,
      newCounter: 1,
    });
    const stale = { ...stored, counter: 5 };
    expect(await verifyAssertion(options(), clone(assertion) as never, stale, NOW)).toEqual({
      status: 'INVALID_AUTHENTICATOR_ERROR',
      reason: 'Response counter value 1 was lower than expected 5',
    });
    const broken = auth.get(stored.id, { challenge: CHALLENGE, relyingPartyId: RP.id }, RP.origin, {
      breakSignature: true,
    });
    expect(await verifyAssertion(options(), clone(broken) as never, stored, NOW)).toMatchObject({
      status: 'INVALID_AUTHENTICATOR_ERROR',
    });
    expect(await verifyAssertion(options({ expiresAt: NOW - 1 }), clone(assertion) as never, stored, NOW)).toEqual({
      status: 'INVALID_OPTIONS_ERROR',
      reason: 'Options expired',
    });
    const garbled = { ...assertion, response: { ...assertion.response, authenticatorData: 'AA' } };
    expect(await verifyAssertion(options(), garbled as never, stored, NOW)).toMatchObject({
      status: 'INVALID_CREDENTIALS_ERROR',
      reason: expect.stringMatching(/^authenticatorData could not be decoded/),
    });
  });

  it('checks user presence only when the options ask for it, and verification only when required', async () => {
    const { auth, stored } = await registered();
    const bare = auth.get(stored.id, { challenge: CHALLENGE, relyingPartyId: RP.id }, RP.origin, { flags: 0 });
    expect(await verifyAssertion(options(), clone(bare) as never, stored, NOW)).toMatchObject({ ok: true });
    const again = auth.get(stored.id, { challenge: CHALLENGE, relyingPartyId: RP.id }, RP.origin, { flags: 0 });
    expect(
      await verifyAssertion(options({ userPresence: true }), clone(again) as never, { ...stored, counter: 1 }, NOW),
    ).toMatchObject({
      status: 'INVALID_AUTHENTICATOR_ERROR',
      reason: 'User not present during authentication',
    });
    const present = auth.get(stored.id, { challenge: CHALLENGE, relyingPartyId: RP.id }, RP.origin, {
      flags: FLAGS.UP,
    });
    expect(
      await verifyAssertion(
        options({ userVerification: 'required' }),
        clone(present) as never,
        { ...stored, counter: 2 },
        NOW,
      ),
    ).toMatchObject({ status: 'INVALID_AUTHENTICATOR_ERROR' });
  });

  it('answers any JSON in any field of a real assertion with a status', async () => {
    const { auth, stored } = await registered();
    const good = auth.get(stored.id, { challenge: CHALLENGE, relyingPartyId: RP.id }, RP.origin);
    const fields = ['rawId', 'response', 'clientDataJSON', 'authenticatorData', 'signature', 'userHandle'] as const;
    const statuses = new Set(['INVALID_CREDENTIALS_ERROR', 'INVALID_AUTHENTICATOR_ERROR']);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), fc.jsonValue(), async (field, value) => {
        const credential = clone(good) as unknown as Record<string, any>;
        if (field in credential) credential[field] = value;
        else credential.response[field] = value;
        const result = await verifyAssertion(options(), credential, stored, NOW);
        if (!('ok' in result)) expect(statuses.has(result.status)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

/** Deps whose stores keep options in a map and know no users. */
function memoryDeps(): WebauthnDeps & { saved: GeneratedOptions[] } {
  const saved: GeneratedOptions[] = [];
  let n = 0;
  return {
    saved,
    appId: 'a',
    users: {
      now: () => NOW,
      newId: () => `id-${++n}`,
      store: { usersByAccountInfo: async () => [[]] } as never,
    },
    store: {
      storeWebauthnOptions: async (o: GeneratedOptions) => {
        saved.push(o);
        return true;
      },
    } as never,
    tokens: {} as never,
    randomBytes: (size) => new Uint8Array(size).fill(3),
    recoverTokenLifetimeMs: 1,
  };
}

describe('options', () => {
  const settings = { relyingPartyId: RP.id, relyingPartyName: RP.name, origin: RP.origin };

  it('checks the origin against the relying party as the reference does', async () => {
    const deps = memoryDeps();
    const cases: [string, string, string | undefined][] = [
      ['https://app.example.com', 'example.com', undefined],
      ['http://localhost:3000', 'localhost', undefined],
      ['https://example.com.evil.test', 'example.com', 'Origin does not match RelyingParty Id'],
      ['ftp://example.com', 'example.com', 'Origin has to be a valid url!'],
      ['example.com', 'example.com', 'Origin has to be a valid url!'],
      [
        `android:apk-key-hash:${'A'.repeat(42)}=`,
        'example.com',
        'Android origin hash must be valid URL-safe base64 (no padding)',
      ],
    ];
    for (const [origin, relyingPartyId, reason] of cases) {
      const answer = await signInOptions(
        deps,
        { tenantId: 'public' },
        {
          ...parseSignInOptions({ ...settings, origin, relyingPartyId }),
        },
      );
      expect(answer, origin).toMatchObject(reason ? { status: 'INVALID_OPTIONS_ERROR', reason } : { status: 'OK' });
    }
  });

  it('stores what it answers, with the expiry of its timeout', async () => {
    const deps = memoryDeps();
    const answer = await registerOptions(
      deps,
      { tenantId: 't1' },
      parseRegisterOptions({ ...settings, email: ' Ada@Example.com', timeout: 2500.7 }),
    );
    expect(answer).toMatchObject({ status: 'OK', timeout: 2500, createdAt: NOW, expiresAt: NOW + 2500 });
    expect(deps.saved).toEqual([
      {
        id: 'id-1',
        tenantId: 't1',
        challenge: Buffer.alloc(32, 3).toString('base64url'),
        email: 'ada@example.com',
        relyingPartyId: RP.id,
        relyingPartyName: RP.name,
        origin: RP.origin,
        userVerification: 'preferred',
        userPresence: false,
        createdAt: NOW,
        expiresAt: NOW + 2500,
      },
    ]);
  });

  it('reads any body or refuses it with a 400, and any settings are answered with a status', async () => {
    const readers = [parseRegisterOptions, parseSignInOptions, parseCredentialInput];
    fc.assert(
      fc.property(fc.constantFrom(...readers), fc.dictionary(fc.string(), fc.jsonValue()), (read, body) => {
        try {
          read(body);
        } catch (error) {
          expect(error).toBeInstanceOf(BadRequestError);
        }
      }),
      { numRuns: 500 },
    );
    const text = fc.string({ maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          email: text,
          relyingPartyId: fc.oneof(text, fc.constantFrom('example.com', 'localhost')),
          relyingPartyName: text,
          origin: fc.oneof(text, fc.constantFrom('https://app.example.com', 'http://localhost:3000', 'https://x.test')),
          timeout: fc.integer({ min: -10, max: 100_000 }),
          userVerification: text,
          attestation: text,
          residentKey: text,
          supportedAlgorithmIDs: fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 4 }),
        }),
        async (body) => {
          const answer = await registerOptions(memoryDeps(), { tenantId: 'public' }, parseRegisterOptions(body));
          expect(['OK', 'INVALID_OPTIONS_ERROR']).toContain(answer.status);
        },
      ),
      { numRuns: 300 },
    );
  });
});
