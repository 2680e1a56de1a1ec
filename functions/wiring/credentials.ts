/**
 * The key provider of credentials at rest, chosen by the environment: the stack's credentials KMS
 * key on AWS (`CREDENTIALS_KEY_ARN`, set only on the functions the manifests let seal or open), the
 * local runtime's key file (`CREDENTIALS_KEY_FILE`) or its process-lifetime key (`CREDENTIALS_KEY`,
 * `--in-memory` and tests). Resolved on first use: a function that never seals or opens a
 * credential never needs one.
 */
import type { DataKeyProvider } from '#functions/domain/credentials/ports.js';
import { ENV, optionalEnv } from '#functions/shared/env.js';
import { Envelope } from '#functions/storage/crypto/envelope.js';
import { createKmsKeyProvider } from '#functions/storage/crypto/kms-keys.js';
import {
  createLocalKeyFileProvider,
  createLocalKeyProvider,
  LOCAL_KEY_BYTES,
} from '#functions/storage/crypto/local-keys.js';

function providerFromEnvironment(): DataKeyProvider {
  const arn = optionalEnv(ENV.credentialsKeyArn);
  if (arn) return createKmsKeyProvider(arn);
  const file = optionalEnv(ENV.credentialsKeyFile);
  // Read at its first use: an unreadable file is the key service being unavailable (503), not a crash.
  if (file) return createLocalKeyFileProvider(file);
  const inline = optionalEnv(ENV.credentialsKey);
  if (inline) {
    const key = Buffer.from(inline, 'base64');
    if (key.length !== LOCAL_KEY_BYTES)
      throw new Error(`${ENV.credentialsKey} must be ${LOCAL_KEY_BYTES} bytes in Base64`);
    return createLocalKeyProvider(key);
  }
  throw new Error(
    `No key for credentials at rest: set ${ENV.credentialsKeyArn} (AWS), ${ENV.credentialsKeyFile} or ${ENV.credentialsKey} (local)`,
  );
}

let envelope: Envelope | undefined;

/** The envelope of this process (its caches are the execution environment's). */
export function credentialsEnvelope(): Envelope {
  envelope ??= new Envelope(providerFromEnvironment());
  return envelope;
}
