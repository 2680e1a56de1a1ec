/**
 * The AWS key provider: data keys from the stack's credentials KMS key (GenerateDataKey, AES-256),
 * unwrapped with Decrypt, both with the context as KMS encryption context — so a wrapped key
 * moved to another app does not decrypt, and the stack's IAM grants can require the app in it.
 * A wrapped key is `'K' (1) | KMS ciphertext blob`.
 *
 * KMS's failures fall into three kinds (docs/security.md "Key service outages"):
 * - not now (throttling, an outage: {@link KMS_UNAVAILABLE}, 5xx, timeouts, the network): a
 *   KeyServiceUnavailableError — backpressure, 503 from a route, the message back to the queue;
 * - never for this wrapped key (it was altered, or wrapped under another key): UnreadableSecretError
 *   (`altered`, `other-key`);
 * - never with this key until an operator acts (it is disabled, scheduled for deletion or deleted,
 *   or the function may not use it: {@link KMS_REFUSED}, and any other 4xx): UnreadableSecretError
 *   (`key-refused`) when unwrapping, KeyServiceRefusedError when making a data key.
 */
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import {
  type DataKeyProvider,
  type KeyContext,
  KeyServiceRefusedError,
  UnreadableSecretError,
} from '#functions/domain/credentials/ports.js';
import { awsClientTimeouts } from '#functions/shared/aws-timeouts.js';
import { KeyServiceUnavailableError } from '#functions/shared/errors.js';

const KMS_WRAP_TAG = 0x4b;

const encryptionContext = (context: KeyContext): Record<string, string> => ({
  purpose: context.purpose,
  appId: context.appId,
});

/** KMS answers that mean "not now": worth a retry later. */
export const KMS_UNAVAILABLE: Readonly<Record<string, 'throttled' | 'unavailable'>> = {
  ThrottlingException: 'throttled',
  KMSInternalException: 'unavailable',
  KeyUnavailableException: 'unavailable',
  DependencyTimeoutException: 'unavailable',
  ServiceUnavailableException: 'unavailable',
  InternalFailure: 'unavailable',
  ServiceUnavailable: 'unavailable',
  // The SDK's own: a request or connection timeout, an aborted request.
  TimeoutError: 'unavailable',
  RequestTimeout: 'unavailable',
  RequestTimeoutException: 'unavailable',
  AbortError: 'unavailable',
};

/** KMS answers about the key itself, which no retry fixes until an operator acts. */
export const KMS_REFUSED: readonly string[] = [
  'DisabledException',
  'KMSInvalidStateException',
  'NotFoundException',
  'AccessDeniedException',
  'InvalidKeyUsageException',
  'KeyUsageMismatchException',
];

/** Network failures below HTTP: the request may not have reached KMS at all. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ENETUNREACH',
]);

interface SdkError {
  name?: string;
  code?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** Whether a KMS call failed for a reason that says "not now"; its kind, or undefined. */
export function kmsUnavailableKind(error: unknown): 'throttled' | 'unavailable' | undefined {
  const e = (error ?? {}) as SdkError;
  const byName = e.name !== undefined ? KMS_UNAVAILABLE[e.name] : undefined;
  if (byName) return byName;
  if (e.name !== undefined && KMS_REFUSED.includes(e.name)) return undefined;
  const status = e.$metadata?.httpStatusCode;
  if (status === 429) return 'throttled';
  if (e.$retryable) return 'unavailable';
  if (status !== undefined && status >= 500) return 'unavailable';
  if (e.code !== undefined && NETWORK_CODES.has(e.code)) return 'unavailable';
  return undefined;
}

const nameOf = (error: unknown) => (error instanceof Error ? error.name : 'unknown error');

/** The error a failed KMS call is rethrown as (see the module comment); `operation` names the call. */
function classified(error: unknown, operation: 'GenerateDataKey' | 'Decrypt'): Error {
  const kind = kmsUnavailableKind(error);
  if (kind) {
    return new KeyServiceUnavailableError(kind, `KMS ${operation} did not answer for now (${nameOf(error)})`, {
      cause: error,
    });
  }
  const name = nameOf(error);
  if (operation === 'Decrypt') {
    // KMS's answers for a blob that will never decrypt here.
    if (name === 'InvalidCiphertextException') {
      return new UnreadableSecretError('altered', 'KMS refused the wrapped data key for this app');
    }
    if (name === 'IncorrectKeyException') {
      return new UnreadableSecretError('other-key', 'the wrapped data key belongs to another KMS key');
    }
    return new UnreadableSecretError('key-refused', `KMS refused to unwrap with the credentials key (${name})`);
  }
  return new KeyServiceRefusedError(`KMS refused to make a data key with the credentials key (${name})`);
}

export function createKmsKeyProvider(keyArn: string, client: () => KMSClient = defaultClient): DataKeyProvider {
  return {
    async generateDataKey(context) {
      let out: { Plaintext?: Uint8Array; CiphertextBlob?: Uint8Array };
      try {
        out = await client().send(
          new GenerateDataKeyCommand({
            KeyId: keyArn,
            KeySpec: 'AES_256',
            EncryptionContext: encryptionContext(context),
          }),
        );
      } catch (error) {
        throw classified(error, 'GenerateDataKey');
      }
      if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS GenerateDataKey returned no key');
      return { plaintext: out.Plaintext, wrapped: Buffer.concat([Buffer.of(KMS_WRAP_TAG), out.CiphertextBlob]) };
    },
    async unwrapDataKey(wrapped, context) {
      const bytes = Buffer.from(wrapped);
      if (bytes[0] !== KMS_WRAP_TAG) {
        throw new UnreadableSecretError('other-key', 'sealed under a key of another provider (not KMS)');
      }
      let out: { Plaintext?: Uint8Array };
      try {
        out = await client().send(
          new DecryptCommand({
            CiphertextBlob: bytes.subarray(1),
            KeyId: keyArn,
            EncryptionContext: encryptionContext(context),
          }),
        );
      } catch (error) {
        throw classified(error, 'Decrypt');
      }
      if (!out.Plaintext) throw new Error('KMS Decrypt returned no key');
      return out.Plaintext;
    },
  };
}

let kmsClient: KMSClient | undefined;
function defaultClient(): KMSClient {
  kmsClient ??= new KMSClient({ maxAttempts: 5, ...awsClientTimeouts() });
  return kmsClient;
}
