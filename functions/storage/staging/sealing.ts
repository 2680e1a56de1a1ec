/**
 * Staged credentials at rest. A staged row keeps its user in clear JSON WITHOUT the credential
 * fields; those are sealed together (AES-256-GCM, storage/crypto/envelope.ts) into the row's
 * `credentials` attribute, bound to the app, the row and the data key. The data key's wrapped form
 * is stored once per data key — one item per staging request or fewer, not one per row — and the
 * row names it (`dataKey`): a row grows by about 60 bytes, not by the 185 of a KMS-wrapped key,
 * so a typical staged user stays within one 1 KB write unit.
 */

import type { ClearImportUser } from '#functions/domain/bulk-import/staging-ports.js';
import { type KeyContext, type UnreadableReason, UnreadableSecretError } from '#functions/domain/credentials/ports.js';
import type { ImportUser } from '#functions/domain/import/types.js';
import { setNewest } from '#functions/shared/bounded-cache.js';
import { type Envelope, openWith, type SealingKey } from '../crypto/envelope.js';
import { stagingDataKeyPartition } from '../keys/staging.js';
import { defineEntity, getItem, type Item, putItem, type Table } from '../kit/index.js';
import { type CredentialFields, joinCredentials, splitCredentials } from './credentials.js';

/** One wrapped data key of an app's staged credentials. */
export const stagingDataKey = defineEntity({
  type: 'BULK_IMPORT_DATA_KEY',
  key: (k: { appId: string; keyId: string }) => ({ PK: stagingDataKeyPartition(k.appId), SK: k.keyId }),
});

/** The FAILED message of a row whose credentials can never be opened (no credential in it). */
export const UNREADABLE_CREDENTIALS_MESSAGES: Readonly<Record<UnreadableReason, string>> = {
  'other-key':
    'The staged credentials cannot be decrypted: they were sealed with a key this core does not have ' +
    '(locally: the key file under DATA_DIR was replaced or lost). Stage the user again.',
  altered:
    'The staged credentials cannot be decrypted: the row was altered, or moved from another row or app. ' +
    'Stage the user again.',
  'key-missing':
    'The staged credentials cannot be decrypted: their data key is missing (the row was moved from another app). ' +
    'Stage the user again.',
  'key-refused':
    'The staged credentials cannot be decrypted: the credentials key refused to open them (it is disabled, ' +
    'scheduled for deletion or deleted, or the import worker may not use it). Stage the user again.',
};

const context = (appId: string): KeyContext => ({ purpose: 'staged-credentials', appId });
const associatedData = (appId: string, rowId: string, keyId: string) =>
  `staged-credentials\u0000${appId}\u0000${rowId}\u0000${keyId}`;

/** Row attributes: the sealed credential fields and the id of the data key that sealed them. */
export const SEALED_ATTRIBUTE = 'credentials';
export const DATA_KEY_ATTRIBUTE = 'dataKey';

const WRAPPED_CACHE_SIZE = 1_000;

export class StagedCredentials {
  /** Data keys whose item is written (or being written), by key id. */
  private readonly persisted = new Map<string, Promise<void>>();
  /** Wrapped data keys read back, by app and key id. */
  private readonly wrapped = new Map<string, Promise<Uint8Array>>();

  constructor(
    private readonly table: Table,
    private readonly envelope: () => Envelope,
  ) {}

  /**
   * The sealing key for these users' rows, its wrapped form stored before any row names it;
   * undefined when none of them carries a credential (no key needed).
   */
  async sealingKeyFor(appId: string, users: readonly ImportUser[]): Promise<SealingKey | undefined> {
    const sealed = users.filter((u) => splitCredentials(u).credentials !== undefined).length;
    if (sealed === 0) return undefined;
    const key = await this.envelope().sealingKey(context(appId), sealed);
    let stored = this.persisted.get(key.id);
    if (!stored) {
      stored = putItem(
        this.table,
        stagingDataKey.item({ appId, keyId: key.id }, { appId, keyId: key.id, wrapped: key.wrapped }),
        { expression: 'attribute_not_exists(PK)' },
      ).then(() => undefined);
      stored.catch(() => this.persisted.delete(key.id));
      this.persisted.set(key.id, stored);
    }
    await stored;
    return key;
  }

  /** Row attributes of `user`: its clear JSON without credentials, and the sealed credentials. */
  rowAttributes(appId: string, user: ImportUser, key: SealingKey | undefined): Item {
    const { user: clear, credentials } = splitCredentials(user);
    // JSON text: keeps the reference's key order and any metadata shape DynamoDB maps cannot hold.
    const attributes: Item = { user: JSON.stringify(clear) };
    if (!credentials) return attributes;
    if (!key) throw new Error('a staged user with credentials needs a sealing key');
    attributes[SEALED_ATTRIBUTE] = key.seal(
      Buffer.from(JSON.stringify(credentials), 'utf8'),
      associatedData(appId, user.id, key.id),
    );
    attributes[DATA_KEY_ATTRIBUTE] = key.id;
    return attributes;
  }

  /**
   * The user of a row with its credentials opened (a row written before credentials were sealed
   * carries them in clear). `where` is the app and row id the row was read under (its key), never
   * the item's own attributes: sealed credentials open only in the row they were sealed for.
   * Throws UnreadableSecretError when they can never be opened.
   */
  async openUser(item: Item, where: { readonly appId: string; readonly id: string }): Promise<ImportUser> {
    const stored = JSON.parse(item.user as string);
    const sealed = item[SEALED_ATTRIBUTE];
    if (sealed === undefined) return stored as ImportUser;
    const { appId, id } = where;
    const keyId = item[DATA_KEY_ATTRIBUTE];
    if (!(sealed instanceof Uint8Array) || typeof keyId !== 'string') {
      throw new UnreadableSecretError('altered', 'the sealed credentials are not in a known format');
    }
    const dataKey = await this.envelope().openingKey(await this.wrappedKey(appId, keyId), context(appId));
    const fields = JSON.parse(openWith(dataKey, sealed, associatedData(appId, id, keyId)).toString('utf8'));
    return joinCredentials(stored as ClearImportUser, fields as CredentialFields);
  }

  private wrappedKey(appId: string, keyId: string): Promise<Uint8Array> {
    const id = `${appId}\u0000${keyId}`;
    let found = this.wrapped.get(id);
    if (!found) {
      found = getItem(this.table, stagingDataKey.key({ appId, keyId })).then((item) => {
        const wrapped = item?.wrapped;
        if (!(wrapped instanceof Uint8Array)) {
          throw new UnreadableSecretError('key-missing', 'the data key of these staged credentials is missing');
        }
        return wrapped;
      });
      found.catch(() => this.wrapped.delete(id));
      setNewest(this.wrapped, id, found, WRAPPED_CACHE_SIZE);
    }
    return found;
  }
}
