/**
 * An app's signing keys and refresh-token key (docs/sessions.md "Signing keys"): items under
 * `APP#<a>#SIGNKEYS` (keys/sessions.ts). The public part of an RSA key is kept in clear (it is
 * what the JWKS shows); every private part is sealed with the credentials envelope
 * (storage/crypto/envelope.ts: data key context `signing-key` + app, associated data binding the
 * app and the key id), so a reader of the table never holds a usable private key and a sealed key
 * copied to another app or key id does not open. Each slot (a dynamic key's generation, the static
 * key, the refresh-token key) is written once, with a conditional Put: concurrent writers of the
 * same slot leave exactly one key.
 */
import type { KeyContext } from '#functions/domain/credentials/ports.js';
import type { NewSigningKey, PublicJwk, SigningKeyKind, StoredSigningKey } from '#functions/domain/sessions/model.js';
import type { SigningKeyStore } from '#functions/domain/sessions/ports.js';
import type { Envelope } from '../crypto/envelope.js';
import { dynamicKeySortKey, REFRESH_KEY_SK, STATIC_KEY_SK, signingKeysPartition } from '../keys/sessions.js';
import { defineEntity, type Item, putItem, queryAll, type Table } from '../kit/index.js';

type Slot = { appId: string; kind: SigningKeyKind; generation: number };

const slotSortKey = (s: Slot) =>
  s.kind === 'dynamic' ? dynamicKeySortKey(s.generation) : s.kind === 'static' ? STATIC_KEY_SK : REFRESH_KEY_SK;

const signingKeyEntity = defineEntity({
  type: 'SIGNING_KEY',
  key: (s: Slot) => ({ PK: signingKeysPartition(s.appId), SK: slotSortKey(s) }),
});

const context = (appId: string): KeyContext => ({ purpose: 'signing-key', appId });
const associatedData = (appId: string, kid: string) => `signing-key\u0000${appId}\u0000${kid}`;

function keyOf(item: Item): StoredSigningKey {
  const publicJwk = typeof item.publicJwk === 'string' ? (JSON.parse(item.publicJwk) as PublicJwk) : undefined;
  return {
    kid: item.kid as string,
    kind: item.kind as SigningKeyKind,
    generation: item.generation as number,
    createdAt: item.createdAt as number,
    ...(publicJwk ? { publicJwk } : {}),
    sealed: item.sealed as Uint8Array,
  };
}

/** Keys of an app as stored (sealed parts included): the Query the store and the tests share. */
export async function storedSigningKeyItems(table: Table, appId: string): Promise<Item[]> {
  return queryAll(table, { pk: signingKeysPartition(appId) }, { consistent: true });
}

export function createSigningKeyStore(table: Table, envelope: () => Envelope): SigningKeyStore {
  return {
    async list(appId) {
      return (await storedSigningKeyItems(table, appId)).map(keyOf);
    },

    async add(appId, key: NewSigningKey) {
      const sealed = await envelope().sealInline(key.secret, context(appId), associatedData(appId, key.kid));
      const item = signingKeyEntity.item(
        { appId, kind: key.kind, generation: key.generation },
        {
          kid: key.kid,
          kind: key.kind,
          generation: key.generation,
          createdAt: key.createdAt,
          ...(key.publicJwk ? { publicJwk: JSON.stringify(key.publicJwk) } : {}),
          sealed,
          ...(key.expiresAt === undefined ? {} : { expiresAt: Math.ceil(key.expiresAt / 1000) }),
        },
      );
      return putItem(table, item, { expression: 'attribute_not_exists(PK)' });
    },

    async open(appId, key) {
      return envelope().openInline(key.sealed, context(appId), associatedData(appId, key.kid));
    },
  };
}
