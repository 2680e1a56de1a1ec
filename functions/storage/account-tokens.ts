/**
 * Password-reset, email-verification and WebAuthn account-recovery tokens, and verified emails that
 * are not a login method's own (the port in functions/domain/accounts/ports.ts); keys in
 * keys/accounts.ts.
 *
 * A token is two items: on its owner's partition (found with the owner's other tokens by one
 * consistent Query) and under its hash (found by the token alone). It is written owner side
 * first; consuming it deletes both on condition that both exist, so a token whose owner-side item
 * a revocation removed is refused even if its lookup item was written after the revocation read.
 * Both items carry the TTL attribute and the GSI3 user-data entry. Verified-email items have no
 * TTL. The writes a user write commits with them are composed here ({@link accountWriteActions}).
 */
import type { AccountTokenStore, AccountTokenStores } from '#functions/domain/accounts/ports.js';
import type {
  AccountWrites,
  OneTimeToken,
  OneTimeTokenKind,
  VerifiedEmailRef,
} from '#functions/domain/users/companions.js';
import type { WriteEntity } from '#functions/domain/users/ports.js';
import {
  EMAIL_VERIFICATION_TOKEN_SK,
  emailVerificationTokenPrefix,
  emailVerificationTokenSortKey,
  RESET_TOKEN_PREFIX,
  RESET_TOKEN_SK,
  resetTokenSortKey,
  tokenPartition,
  userPartition,
  verifiedEmailSortKey,
  WEBAUTHN_RECOVERY_TOKEN_SK,
  webauthnRecoveryTokenPrefix,
  webauthnRecoveryTokenSortKey,
} from './keys/accounts.js';
import { userDataIndexPartitionOf } from './keys/metadata.js';
import { USER_SK } from './keys/users.js';
import {
  batchDeleteAll,
  defineEntity,
  getItem,
  type Item,
  type Key,
  putItem,
  queryAll,
  type Table,
  type TransactItem,
  ttlSeconds,
} from './kit/index.js';

const LOOKUP_SK: Record<OneTimeTokenKind, string> = {
  passwordReset: RESET_TOKEN_SK,
  emailVerification: EMAIL_VERIFICATION_TOKEN_SK,
  webauthnRecovery: WEBAUTHN_RECOVERY_TOKEN_SK,
};

/** The owner-side sort key of a token. */
function ownerSortKey(token: OneTimeToken): string {
  switch (token.kind) {
    case 'passwordReset':
      return resetTokenSortKey(token.hash);
    case 'emailVerification':
      return emailVerificationTokenSortKey(token.tenantId ?? '', token.email, token.hash);
    case 'webauthnRecovery':
      return webauthnRecoveryTokenSortKey(token.tenantId ?? '', token.email, token.hash);
  }
}

type Owned = { appId: string; ownerId: string };

const tokenLookup = defineEntity({
  type: 'ONE_TIME_TOKEN',
  key: (t: { appId: string; token: OneTimeToken }) => ({
    PK: tokenPartition(t.appId, t.token.hash),
    SK: LOOKUP_SK[t.token.kind],
  }),
  indexes: {
    GSI3: {
      pk: (t: { appId: string; token: OneTimeToken }) => userDataIndexPartitionOf(t.appId, t.token.ownerId),
      sk: (t: { appId: string; token: OneTimeToken }) => LOOKUP_SK[t.token.kind],
    },
  },
});

const ownedToken = defineEntity({
  type: 'USER_ONE_TIME_TOKEN',
  key: (t: { appId: string; token: OneTimeToken }) => ({
    PK: userPartition(t.appId, t.token.ownerId),
    SK: ownerSortKey(t.token),
  }),
  indexes: {
    GSI3: {
      pk: (t: { appId: string; token: OneTimeToken }) => userDataIndexPartitionOf(t.appId, t.token.ownerId),
      sk: (t: { appId: string; token: OneTimeToken }) => ownerSortKey(t.token),
    },
  },
});

const verifiedEmail = defineEntity({
  type: 'VERIFIED_EMAIL',
  key: (v: Owned & { email: string }) => ({ PK: userPartition(v.appId, v.ownerId), SK: verifiedEmailSortKey(v.email) }),
  indexes: {
    GSI3: {
      pk: (v: Owned & { email: string }) => userDataIndexPartitionOf(v.appId, v.ownerId),
      sk: (v: Owned & { email: string }) => verifiedEmailSortKey(v.email),
    },
  },
});

/** What both items of a token hold (never the token). */
function tokenAttributes(token: OneTimeToken): Item {
  return {
    kind: token.kind,
    tokenHash: token.hash,
    ownerId: token.ownerId,
    userId: token.userId,
    email: token.email,
    ...(token.tenantId !== undefined ? { tenantId: token.tenantId } : {}),
    tokenExpiry: token.expiresAt,
    expiresAt: ttlSeconds(token.expiresAt),
  };
}

function tokenFromItem(item: Item | undefined): OneTimeToken | undefined {
  if (!item) return undefined;
  return {
    kind: item.kind as OneTimeTokenKind,
    hash: item.tokenHash as string,
    ownerId: item.ownerId as string,
    userId: item.userId as string,
    email: item.email as string,
    ...(typeof item.tenantId === 'string' ? { tenantId: item.tenantId } : {}),
    expiresAt: item.tokenExpiry as number,
  };
}

const tokenKeys = (appId: string, token: OneTimeToken): [Key, Key] => [
  ownedToken.key({ appId, token }),
  tokenLookup.key({ appId, token }),
];

const verifiedKey = (appId: string, ref: VerifiedEmailRef) => verifiedEmail.key({ appId, ...ref });

/** The token use cases' storage port for one table, bound to one app by `forApp`. */
export function createAccountTokenStore(table: Table): AccountTokenStores {
  const forApp = (appId: string): AccountTokenStore => ({
    async storeOneTimeToken(token) {
      const attributes = tokenAttributes(token);
      // Owner side first: a revocation that reads the owner's tokens in between still finds it,
      // and a lookup item left without its owner-side item is never accepted (see the header).
      await putItem(table, ownedToken.item({ appId, token }, attributes, { GSI3: { appId, token } }));
      await putItem(table, tokenLookup.item({ appId, token }, attributes, { GSI3: { appId, token } }));
    },

    async readOneTimeToken(kind, hash) {
      const item = await getItem(table, { PK: tokenPartition(appId, hash), SK: LOOKUP_SK[kind] });
      return tokenFromItem(item);
    },

    async oneTimeTokensOf(group) {
      const prefix =
        group.kind === 'passwordReset'
          ? RESET_TOKEN_PREFIX
          : group.kind === 'emailVerification'
            ? emailVerificationTokenPrefix(group.tenantId, group.email)
            : webauthnRecoveryTokenPrefix(group.tenantId, group.email);
      const items = await queryAll(
        table,
        { pk: userPartition(appId, group.ownerId), sk: { beginsWith: prefix } },
        { consistent: true },
      );
      return items.flatMap((item) => {
        const token = tokenFromItem(item);
        return token ? [token] : [];
      });
    },

    async removeOneTimeTokens(tokens) {
      await batchDeleteAll(
        table,
        tokens.flatMap((token) => tokenKeys(appId, token)),
      );
    },

    async isVerifiedEmail(ref) {
      return (await getItem(table, verifiedKey(appId, ref))) !== undefined;
    },
  });
  return { forApp };
}

/** DynamoDB actions with the entity each reports when its condition fails. */
export interface AccountAction {
  readonly item: TransactItem;
  readonly entity: WriteEntity;
}

const exists = 'attribute_exists(PK)';
const absent = 'attribute_not_exists(PK)';

/**
 * The actions of companion account writes (composed into a user write's transaction by
 * users/write.ts). `userUnchanged` checks the USER item's version.
 */
export function accountWriteActions(table: Table, appId: string, writes: AccountWrites): AccountAction[] {
  const TableName = table.name;
  const out: AccountAction[] = [];
  if (writes.consume) {
    for (const Key of tokenKeys(appId, writes.consume)) {
      out.push({
        entity: { kind: 'oneTimeToken' },
        item: { Delete: { TableName, Key, ConditionExpression: exists } },
      });
    }
  }
  for (const token of writes.discard ?? []) {
    for (const Key of tokenKeys(appId, token))
      out.push({ entity: { kind: 'internal' }, item: { Delete: { TableName, Key } } });
  }
  for (const ref of writes.verify ?? []) {
    out.push({
      entity: { kind: 'internal' },
      item: {
        Put: {
          TableName,
          Item: verifiedEmail.item(
            { appId, ...ref },
            { ownerId: ref.ownerId, email: ref.email },
            { GSI3: { appId, ...ref } },
          ),
        },
      },
    });
  }
  for (const ref of writes.unverify ?? []) {
    out.push({
      entity: { kind: 'verifiedEmail' },
      item: {
        Delete: { TableName, Key: verifiedKey(appId, ref), ...(ref.mustExist ? { ConditionExpression: exists } : {}) },
      },
    });
  }
  for (const ref of writes.expectUnverified ?? []) {
    out.push({
      entity: { kind: 'verifiedEmail' },
      item: { ConditionCheck: { TableName, Key: verifiedKey(appId, ref), ConditionExpression: absent } },
    });
  }
  if (writes.userUnchanged) {
    out.push({
      entity: { kind: 'user', userId: writes.userUnchanged.userId },
      item: {
        ConditionCheck: {
          TableName,
          Key: { PK: userPartition(appId, writes.userUnchanged.userId), SK: USER_SK },
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': writes.userUnchanged.version },
        },
      },
    });
  }
  return out;
}

/** How many actions {@link accountWriteActions} makes of these writes. */
export function accountWriteActionCount(writes: AccountWrites | undefined): number {
  if (!writes) return 0;
  return (
    (writes.consume ? 2 : 0) +
    2 * (writes.discard?.length ?? 0) +
    (writes.verify?.length ?? 0) +
    (writes.unverify?.length ?? 0) +
    (writes.expectUnverified?.length ?? 0) +
    (writes.userUnchanged ? 1 : 0)
  );
}
