/**
 * The key service's failures, classified (docs/security.md "Key service outages"): "not now" is backpressure
 * (KeyServiceUnavailableError: 503 from a route, the message back to the queue from a worker);
 * "never for this box" and "never with this key until an operator acts" are permanent. The KMS
 * provider is driven through a fake client throwing the SDK's own exception classes; the key file
 * provider through a fake file read.
 */
import { randomBytes } from 'node:crypto';
import {
  DependencyTimeoutException,
  DisabledException,
  IncorrectKeyException,
  InvalidCiphertextException,
  KeyUnavailableException,
  type KMSClient,
  KMSInternalException,
  KMSInvalidStateException,
  KMSServiceException,
  NotFoundException,
} from '@aws-sdk/client-kms';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AppImportContext,
  type ImportBatchDeps,
  importStagedBatch,
  importStagedUser,
} from '#functions/domain/bulk-import/import-batch.js';
import type { ClaimedRow, StagingStore } from '#functions/domain/bulk-import/staging-ports.js';
import {
  type DataKeyProvider,
  KeyServiceRefusedError,
  UnreadableSecretError,
} from '#functions/domain/credentials/ports.js';
import { errorToHttp } from '#functions/http/responses.js';
import { BackpressureError, KeyServiceUnavailableError } from '#functions/shared/errors.js';
import { setLogSink } from '#functions/shared/logger.js';
import { Envelope } from '#functions/storage/crypto/envelope.js';
import {
  createKmsKeyProvider,
  KMS_REFUSED,
  KMS_UNAVAILABLE,
  kmsUnavailableKind,
} from '#functions/storage/crypto/kms-keys.js';
import { createLocalKeyFileProvider, createLocalKeyProvider } from '#functions/storage/crypto/local-keys.js';

const CONTEXT = { purpose: 'staged-credentials', appId: 'shop' } as const;
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/00000000-0000-0000-0000-000000000000';
const WRAPPED = Buffer.concat([Buffer.of(0x4b), randomBytes(184)]);

const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode }, message: 'KMS says no' });
/** An error of a KMS exception type the SDK has no class for (it makes a KMSServiceException). */
const generic = (name: string, httpStatusCode: number) =>
  new KMSServiceException({ name, $fault: httpStatusCode >= 500 ? 'server' : 'client', ...meta(httpStatusCode) });

/** A KMS provider whose every call fails with `error`. */
const failingKms = (error: unknown) =>
  createKmsKeyProvider(KEY_ARN, () => ({ send: async () => Promise.reject(error) }) as unknown as KMSClient);

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

const NOT_NOW: readonly (readonly [string, unknown, 'throttled' | 'unavailable'])[] = [
  ['ThrottlingException', generic('ThrottlingException', 400), 'throttled'],
  ['HTTP 429', generic('SomethingNew', 429), 'throttled'],
  ['KMSInternalException', new KMSInternalException(meta(500)), 'unavailable'],
  ['KeyUnavailableException', new KeyUnavailableException(meta(500)), 'unavailable'],
  ['DependencyTimeoutException', new DependencyTimeoutException(meta(503)), 'unavailable'],
  ['a 5xx without a known name', generic('InternalServerError', 502), 'unavailable'],
  ['a retryable error', Object.assign(new Error('x'), { name: 'Whatever', $retryable: {} }), 'unavailable'],
  ['a request timeout', Object.assign(new Error('timed out'), { name: 'TimeoutError' }), 'unavailable'],
  ['an aborted request', Object.assign(new Error('aborted'), { name: 'AbortError' }), 'unavailable'],
  ['a reset connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'unavailable'],
  ['a refused connection', Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }), 'unavailable'],
  ['a failed DNS lookup', Object.assign(new Error('getaddrinfo'), { code: 'EAI_AGAIN' }), 'unavailable'],
];

const REFUSED: readonly (readonly [string, unknown])[] = [
  ['DisabledException', new DisabledException(meta(400))],
  ['KMSInvalidStateException', new KMSInvalidStateException(meta(400))],
  ['NotFoundException', new NotFoundException(meta(400))],
  ['AccessDeniedException', generic('AccessDeniedException', 400)],
  ['an unknown 4xx', generic('ValidationException', 400)],
];

describe('the KMS key provider', () => {
  it.each(NOT_NOW)('makes %s backpressure, when sealing and when opening', async (_, error, kind) => {
    for (const run of [
      () => failingKms(error).generateDataKey(CONTEXT),
      () => failingKms(error).unwrapDataKey(WRAPPED, CONTEXT),
    ]) {
      const thrown = await failure(run);
      expect(thrown).toBeInstanceOf(KeyServiceUnavailableError);
      expect(thrown).toBeInstanceOf(BackpressureError);
      expect((thrown as KeyServiceUnavailableError).kind).toBe(kind);
      expect((thrown as Error).message).toMatch(/^KMS (GenerateDataKey|Decrypt) did not answer for now \(.+\)$/);
    }
  });

  it.each(REFUSED)(
    'makes %s permanent: no data key is made, and a wrapped key is refused for good',
    async (name, error) => {
      const sealing = await failure(() => failingKms(error).generateDataKey(CONTEXT));
      expect(sealing).toBeInstanceOf(KeyServiceRefusedError);
      expect(sealing).not.toBeInstanceOf(BackpressureError);
      const opening = await failure(() => failingKms(error).unwrapDataKey(WRAPPED, CONTEXT));
      expect(opening).toBeInstanceOf(UnreadableSecretError);
      expect((opening as UnreadableSecretError).reason).toBe('key-refused');
      expect((opening as Error).message).toContain(name.startsWith('an unknown') ? 'ValidationException' : name);
    },
  );

  it('tells a wrapped key that was altered or made under another key from a refusal', async () => {
    const altered = await failure(() =>
      failingKms(new InvalidCiphertextException(meta(400))).unwrapDataKey(WRAPPED, CONTEXT),
    );
    expect((altered as UnreadableSecretError).reason).toBe('altered');
    const other = await failure(() => failingKms(new IncorrectKeyException(meta(400))).unwrapDataKey(WRAPPED, CONTEXT));
    expect((other as UnreadableSecretError).reason).toBe('other-key');
  });

  it('never takes a refusal for an outage, nor a named outage for a refusal, whatever else the error carries (property)', () => {
    const names = fc.constantFrom(...Object.keys(KMS_UNAVAILABLE), ...KMS_REFUSED, 'InvalidCiphertextException');
    fc.assert(
      fc.property(
        names,
        fc.option(fc.integer({ min: 200, max: 599 })),
        fc.boolean(),
        fc.option(fc.constantFrom('ECONNRESET', 'EACCES', 'ENOENT')),
        (name, status, retryable, code) => {
          const error = Object.assign(new Error('x'), {
            name,
            ...(status !== null ? { $metadata: { httpStatusCode: status } } : {}),
            ...(retryable ? { $retryable: {} } : {}),
            ...(code !== null ? { code } : {}),
          });
          const kind = kmsUnavailableKind(error);
          if (KMS_REFUSED.includes(name)) expect(kind).toBeUndefined();
          else if (name in KMS_UNAVAILABLE) expect(kind).toBe(KMS_UNAVAILABLE[name]);
          else
            expect(kind === undefined).toBe(
              (status ?? 0) < 500 && status !== 429 && !retryable && code !== 'ECONNRESET',
            );
        },
      ),
    );
  });
});

describe('the local key file provider', () => {
  const fileError =
    (code: string) =>
    (_path: string): Buffer => {
      throw Object.assign(new Error(`${code}: cannot read the file`), { code });
    };

  it.each(['EACCES', 'EPERM', 'EIO', 'EISDIR', 'ENOENT', 'EMFILE'])(
    'makes a file that cannot be read (%s) backpressure, and reads it again at the next use',
    async (code) => {
      let read: (path: string) => Buffer = fileError(code);
      const key = randomBytes(32);
      const provider = createLocalKeyFileProvider('/data/credentials.key', (path) => read(path));
      const thrown = await failure(() => provider.generateDataKey(CONTEXT));
      expect(thrown).toBeInstanceOf(KeyServiceUnavailableError);
      expect((thrown as Error).message).toBe(`the key file /data/credentials.key cannot be read (${code})`);
      expect(await failure(() => provider.unwrapDataKey(WRAPPED, CONTEXT))).toBeInstanceOf(KeyServiceUnavailableError);
      read = () => key;
      const { plaintext, wrapped } = await provider.generateDataKey(CONTEXT);
      expect(Buffer.from(await provider.unwrapDataKey(wrapped, CONTEXT))).toEqual(Buffer.from(plaintext));
      // Read once: a file lost after that no longer matters to this process.
      read = fileError('ENOENT');
      expect(await provider.unwrapDataKey(wrapped, CONTEXT)).toBeDefined();
      // The same key as the provider over the bytes themselves.
      expect(Buffer.from(await createLocalKeyProvider(key).unwrapDataKey(wrapped, CONTEXT))).toEqual(
        Buffer.from(plaintext),
      );
    },
  );

  it('makes a file of the wrong size backpressure too, its content never in the message', async () => {
    const content = Buffer.from('not a key, but 33 bytes of text!!');
    const provider = createLocalKeyFileProvider('/data/credentials.key', () => content);
    const thrown = await failure(() => provider.generateDataKey(CONTEXT));
    expect(thrown).toBeInstanceOf(KeyServiceUnavailableError);
    expect((thrown as Error).message).toBe(
      'the key file /data/credentials.key must hold exactly 32 bytes (it holds 33)',
    );
  });
});

describe('the envelope over a key service that is down', () => {
  it('passes backpressure through and makes a fresh data key once the service answers again', async () => {
    let down = true;
    const local = createLocalKeyProvider(randomBytes(32));
    const provider: DataKeyProvider = {
      generateDataKey: async (context) => {
        if (down) throw new KeyServiceUnavailableError('throttled', 'KMS GenerateDataKey did not answer for now');
        return local.generateDataKey(context);
      },
      unwrapDataKey: (wrapped, context) => local.unwrapDataKey(wrapped, context),
    };
    const envelope = new Envelope(provider);
    expect(await failure(() => envelope.sealInline(Buffer.from('secret'), CONTEXT, 'aad'))).toBeInstanceOf(
      KeyServiceUnavailableError,
    );
    down = false;
    const sealed = await envelope.sealInline(Buffer.from('secret'), CONTEXT, 'aad');
    expect((await envelope.openInline(sealed, CONTEXT, 'aad')).toString()).toBe('secret');
  });
});

describe('a route that meets the key service down', () => {
  it('answers 503 with Retry-After and a message naming no key', () => {
    const lines: string[] = [];
    const previous = setLogSink((line) => lines.push(line));
    let reply: { statusCode: number; headers: Record<string, string>; body: string };
    try {
      reply = errorToHttp(new KeyServiceUnavailableError('unavailable', 'the key file /x cannot be read (EIO)'), {
        route: 'test',
      }) as typeof reply;
    } finally {
      setLogSink(previous);
    }
    expect(lines.map((l) => JSON.parse(l).error)).toEqual(['the key file /x cannot be read (EIO)']);
    expect(reply).toEqual({
      statusCode: 503,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '5' },
      body: 'The credentials key service is unavailable; retry later\n',
    });
  });

  it('answers 500 when the key service refuses the key for good (an operator must act), logging why', () => {
    const lines: string[] = [];
    const previous = setLogSink((line) => lines.push(line));
    try {
      const reply = errorToHttp(new KeyServiceRefusedError('KMS refused (DisabledException)'), { route: 'test' }) as {
        statusCode: number;
        body: string;
      };
      expect([reply.statusCode, reply.body]).toEqual([500, 'Internal Error\n']);
    } finally {
      setLogSink(previous);
    }
    expect(lines.map((l) => JSON.parse(l).error.message)).toEqual(['KMS refused (DisabledException)']);
  });
});

describe('the import worker and the key service', () => {
  const row: ClaimedRow = {
    appId: 'shop',
    id: 'u1',
    status: 'PROCESSING',
    user: {
      id: 'u1',
      userRoles: [],
      totpDevices: [],
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'u1@x.com',
          passwordHash: '$2a$04$abcdefghijklmnopqrstuu5XwPGRwEj1m5dc8x1fFLhzmkmRkp4qC',
          hashingAlgorithm: 'BCRYPT',
          tenantIds: ['public'],
          isVerified: false,
          isPrimary: false,
          timeJoinedInMSSinceEpoch: 1,
          superTokensUserId: 'u1',
        },
      ],
    } as unknown as ClaimedRow['user'],
    createdAt: 1,
    updatedAt: 1,
    sentAt: 1,
  };
  const app: AppImportContext = {
    validation: {
      roleExists: () => true,
      tenantExists: () => true,
      features: { accountLinking: false, mfa: false },
      firebaseSignerKeyConfigured: false,
      stagedImportProblem: async () => undefined,
    } as unknown as AppImportContext['validation'],
    config: {} as AppImportContext['config'],
  };

  /** Deps whose claim or import throws `error`; records what was written to the row. */
  function deps(where: 'claim' | 'import', error: unknown) {
    const written: string[] = [];
    const store = {
      claim: async () => {
        if (where === 'claim') throw error;
        return row;
      },
      claimMany: async () => {
        if (where === 'claim') throw error;
        return new Map([['u1', row]]);
      },
      fail: async (_: ClaimedRow, message: string) => {
        written.push(`FAILED ${message}`);
        return true;
      },
      noteTransientError: async (_a: string, _i: string, message: string) => void written.push(`note ${message}`),
      removeImported: async () => true,
    } as unknown as StagingStore;
    const d: ImportBatchDeps = {
      store,
      loadApp: async () => app,
      importUser: async () => {
        throw error;
      },
      importUserGroup: async () => {
        throw error;
      },
      now: () => 1,
      newId: () => 'id',
      warn: () => undefined,
    };
    return { d, written };
  }

  it.each(['claim', 'import'] as const)(
    'returns the message for later when the key service is down at the %s, and writes nothing',
    async (where) => {
      const { d, written } = deps(
        where,
        new KeyServiceUnavailableError('unavailable', 'KMS Decrypt did not answer for now'),
      );
      expect(await importStagedUser(d, { v: 1, appId: 'shop', id: 'u1' })).toEqual({
        kind: 'backpressure',
        error: 'KeyServiceUnavailableError: KMS Decrypt did not answer for now',
      });
      expect(written).toEqual([]);
    },
  );

  it('fails the user at once when the key service refuses to seal with the key for good', async () => {
    const { d, written } = deps(
      'import',
      new KeyServiceRefusedError('KMS refused to make a data key (DisabledException)'),
    );
    expect(await importStagedUser(d, { v: 1, appId: 'shop', id: 'u1' })).toEqual({
      kind: 'failed',
      message: 'Import failed: KeyServiceRefusedError: KMS refused to make a data key (DisabledException)',
    });
    expect(written).toEqual([
      'FAILED Import failed: KeyServiceRefusedError: KMS refused to make a data key (DisabledException)',
    ]);
  });

  it('keeps a batch whose claim met the key service down entirely for later', async () => {
    const { d, written } = deps(
      'claim',
      new KeyServiceUnavailableError('throttled', 'KMS Decrypt did not answer for now'),
    );
    const results = await importStagedBatch(d, [
      { v: 1, appId: 'shop', id: 'u1' },
      { v: 1, appId: 'shop', id: 'u2' },
    ]);
    expect(results.map((r) => r.kind)).toEqual(['backpressure', 'backpressure']);
    expect(written).toEqual([]);
  });
});
