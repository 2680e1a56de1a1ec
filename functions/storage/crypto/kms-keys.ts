/**
 * The AWS key provider: data keys from the stack's credentials KMS key (GenerateDataKey, AES-256),
 * unwrapped with Decrypt, both with the context as KMS encryption context — so a wrapped key
 * moved to another app does not decrypt, and the stack's IAM grants can require the app in it.
 * A wrapped key is `'K' (1) | KMS ciphertext blob`.
 */
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { type DataKeyProvider, type KeyContext, UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import { awsClientTimeouts } from '#functions/shared/aws-timeouts.js';

export const KMS_WRAP_TAG = 0x4b;

const encryptionContext = (context: KeyContext): Record<string, string> => ({
  purpose: context.purpose,
  appId: context.appId,
});

const errorName = (error: unknown) => (error instanceof Error ? error.name : '');

export function createKmsKeyProvider(keyArn: string, client: () => KMSClient = defaultClient): DataKeyProvider {
  return {
    async generateDataKey(context) {
      const out = await client().send(
        new GenerateDataKeyCommand({
          KeyId: keyArn,
          KeySpec: 'AES_256',
          EncryptionContext: encryptionContext(context),
        }),
      );
      if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS GenerateDataKey returned no key');
      return { plaintext: out.Plaintext, wrapped: Buffer.concat([Buffer.of(KMS_WRAP_TAG), out.CiphertextBlob]) };
    },
    async unwrapDataKey(wrapped, context) {
      const bytes = Buffer.from(wrapped);
      if (bytes[0] !== KMS_WRAP_TAG) {
        throw new UnreadableSecretError('other-key', 'sealed under a key of another provider (not KMS)');
      }
      try {
        const out = await client().send(
          new DecryptCommand({
            CiphertextBlob: bytes.subarray(1),
            KeyId: keyArn,
            EncryptionContext: encryptionContext(context),
          }),
        );
        if (!out.Plaintext) throw new Error('KMS Decrypt returned no key');
        return out.Plaintext;
      } catch (error) {
        // KMS's answers for a blob that will never decrypt here; everything else may pass.
        if (errorName(error) === 'InvalidCiphertextException') {
          throw new UnreadableSecretError('altered', 'KMS refused the wrapped data key for this app');
        }
        if (errorName(error) === 'IncorrectKeyException') {
          throw new UnreadableSecretError('other-key', 'the wrapped data key belongs to another KMS key');
        }
        throw error;
      }
    },
  };
}

let kmsClient: KMSClient | undefined;
function defaultClient(): KMSClient {
  kmsClient ??= new KMSClient({ maxAttempts: 5, ...awsClientTimeouts() });
  return kmsClient;
}
