/**
 * Credentials in a stored coreConfig (forms: functions/config/secrets.ts): API keys become their
 * digests and the Firebase signer key is sealed on every write of a tenant record — so a record
 * written before credentials were sealed is converted the next time it is written — and a sealed
 * signer key is opened only where it is needed (sign-in of a Firebase-hashed user).
 */
import {
  API_KEYS_KEY,
  type ConfigSecret,
  formatSealedConfigValue,
  parseSealedConfigValue,
  SIGNER_KEY_KEY,
  sha256Hex,
  storedApiKeys,
} from '#functions/config/index.js';
import type { KeyContext } from '#functions/domain/credentials/ports.js';
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
  const signer = coreConfig[SIGNER_KEY_KEY];
  // A blank key configures nothing (imports refuse Firebase hashes as without one): nothing to seal.
  if (typeof signer === 'string' && signer.trim() !== '' && !parseSealedConfigValue(signer)) {
    const sealed = await envelope().sealInline(
      Buffer.from(signer, 'utf8'),
      context(appId),
      associatedData(appId, SIGNER_KEY_KEY),
    );
    out[SIGNER_KEY_KEY] = formatSealedConfigValue(sha256Hex(signer), sealed);
  }
  return out;
}

/**
 * The signer key in clear: opened when sealed (for the app it is bound to), as is when stored in
 * clear. Throws UnreadableSecretError when it can never be opened.
 */
export async function openSignerKey(secret: ConfigSecret, envelope: () => Envelope): Promise<string> {
  const sealed = parseSealedConfigValue(secret.stored);
  if (!sealed) return secret.stored;
  const appId = secret.appId ?? '';
  const clear = await envelope().openInline(sealed.sealed, context(appId), associatedData(appId, SIGNER_KEY_KEY));
  return clear.toString('utf8');
}
