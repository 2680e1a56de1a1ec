import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { argon2i, argon2id } from 'hash-wasm';

/**
 * Users imported by test/e2e/sdk.test.ts: one per password-hash format the core must verify,
 * plus a plain-text-password user and a user in a second tenant.
 */

/** The public Firebase scrypt test vector (firebase/scrypt README). */
export const FIREBASE = {
  signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
  saltSeparator: 'Bw==',
  rounds: 8,
  memCost: 14,
  password: 'user1password',
  salt: '42xEC+ixf3L2lw==',
  hash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
} as const;

const FIREBASE_STORED_HASH = `$f_scrypt$${FIREBASE.hash}$${FIREBASE.salt}$m=${FIREBASE.memCost}$r=${FIREBASE.rounds}$s=${FIREBASE.saltSeparator}`;

export interface ImportCase {
  /** Short label used in test names. */
  readonly label: string;
  /** The email as sent to the import endpoint (may carry upper case and blanks). */
  readonly importedEmail: string;
  /** What the core must store and return: trimmed, lower-cased. */
  readonly email: string;
  readonly password: string;
  readonly tenantId: 'public' | 't1';
  readonly externalUserId?: string;
  readonly withRole: boolean;
  readonly metadata?: Record<string, unknown>;
  readonly isVerified: boolean;
  readonly timeJoined: number;
  /** The import request body (one user, docs/reference-behaviour.md "Validating an import user"). */
  readonly body: Record<string, unknown>;
  /** Values that must never show up in the runtime's output. */
  readonly secrets: readonly string[];
}

interface CaseInput {
  readonly label: string;
  readonly importedEmail: string;
  readonly password: string;
  /** `passwordHash` + `hashingAlgorithm`, or undefined for a plain-text-password user. */
  readonly hash?: {
    readonly passwordHash: string;
    readonly hashingAlgorithm: string;
    readonly extraSecrets?: string[];
  };
  readonly tenantId?: 'public' | 't1';
  readonly externalUserId?: string;
  readonly withRole?: boolean;
  readonly metadata?: Record<string, unknown>;
  readonly isVerified?: boolean;
}

function bcryptWithIdentifier(password: string, identifier: '2a' | '2b' | '2y'): string {
  const hash = bcrypt.hashSync(password, 4);
  if (!hash.startsWith('$2b$')) throw new Error(`bcryptjs was expected to emit $2b$ hashes, got ${hash.slice(0, 4)}`);
  // $2a$, $2b$ and $2y$ differ only in historical bug fixes that do not affect short ASCII passwords.
  return `$${identifier}$${hash.slice(4)}`;
}

async function argon2(kind: 'argon2id' | 'argon2i', password: string): Promise<string> {
  const options = {
    password,
    salt: randomBytes(16),
    parallelism: 1,
    iterations: 2,
    memorySize: 1024,
    hashLength: 32,
    outputType: 'encoded',
  } as const;
  const hash = kind === 'argon2id' ? await argon2id(options) : await argon2i(options);
  if (!hash.startsWith(`$${kind}$`)) throw new Error(`hash-wasm ${kind} produced ${hash.slice(0, 12)}`);
  return hash;
}

/** A password unlikely to appear in any log by accident. */
function password(label: string): string {
  return `Pw-${label}-${randomBytes(9).toString('base64url')}!`;
}

/** Builds the users; `role` is the role given to those with `withRole`. Oldest first by timeJoined. */
export async function buildImportCases(role: string): Promise<ImportCase[]> {
  const pw = {
    b2a: password('bcrypt2a'),
    b2b: password('bcrypt2b'),
    b2y: password('bcrypt2y'),
    a2id: password('argon2id'),
    a2i: password('argon2i'),
    plain: password('plain'),
    t1: password('tenant1'),
  };
  const [a2idHash, a2iHash] = await Promise.all([argon2('argon2id', pw.a2id), argon2('argon2i', pw.a2i)]);

  const inputs: CaseInput[] = [
    {
      label: 'bcrypt $2a$',
      importedEmail: 'bcrypt2a@example.com',
      password: pw.b2a,
      hash: { passwordHash: bcryptWithIdentifier(pw.b2a, '2a'), hashingAlgorithm: 'BCRYPT' },
      externalUserId: 'legacy-bcrypt-2a',
      withRole: true,
      metadata: { plan: 'gold', profile: { locale: 'en-GB', newsletter: true }, tags: ['migrated', 'bcrypt'] },
      isVerified: true,
    },
    {
      label: 'bcrypt $2b$',
      importedEmail: '  BCrypt2B@Example.COM ',
      password: pw.b2b,
      hash: { passwordHash: bcryptWithIdentifier(pw.b2b, '2b'), hashingAlgorithm: 'bcrypt' },
      isVerified: false,
    },
    {
      label: 'bcrypt $2y$',
      importedEmail: 'bcrypt2y@example.com',
      password: pw.b2y,
      hash: { passwordHash: bcryptWithIdentifier(pw.b2y, '2y'), hashingAlgorithm: ' Bcrypt ' },
      externalUserId: 'legacy-bcrypt-2y',
      isVerified: true,
    },
    {
      label: 'argon2id',
      importedEmail: 'argon2id@example.com',
      password: pw.a2id,
      hash: { passwordHash: a2idHash, hashingAlgorithm: 'ARGON2' },
      externalUserId: 'legacy-argon2id',
      withRole: true,
      metadata: { source: 'auth0', loginCount: 42 },
      isVerified: false,
    },
    {
      label: 'argon2i',
      importedEmail: 'Argon2i@Example.com',
      password: pw.a2i,
      hash: { passwordHash: a2iHash, hashingAlgorithm: 'argon2' },
      isVerified: true,
    },
    {
      label: 'firebase scrypt',
      importedEmail: 'firebase@example.com',
      password: FIREBASE.password,
      hash: {
        passwordHash: FIREBASE_STORED_HASH,
        hashingAlgorithm: 'FIREBASE_SCRYPT',
        extraSecrets: [FIREBASE.hash, FIREBASE.signerKey],
      },
      externalUserId: 'legacy-firebase-1',
      withRole: true,
      metadata: { source: 'firebase' },
      isVerified: false,
    },
    {
      label: 'plain-text password',
      importedEmail: 'plain@example.com',
      password: pw.plain,
      externalUserId: 'legacy-plain',
      isVerified: false,
    },
    {
      label: 'tenant t1 (bcrypt)',
      importedEmail: 'tenant1@example.com',
      password: pw.t1,
      hash: { passwordHash: bcryptWithIdentifier(pw.t1, '2a'), hashingAlgorithm: 'BCRYPT' },
      tenantId: 't1',
      externalUserId: 'legacy-tenant1',
      withRole: true,
      metadata: { tenant: 't1' },
      isVerified: true,
    },
  ];

  // Distinct join times a minute apart, oldest first, all safely in the past.
  const base = Date.now() - 24 * 60 * 60 * 1000;
  return inputs.map((input, i): ImportCase => {
    const tenantId = input.tenantId ?? 'public';
    const timeJoined = base + i * 60_000;
    const isVerified = input.isVerified ?? false;
    const loginMethod: Record<string, unknown> = {
      recipeId: 'emailpassword',
      email: input.importedEmail,
      tenantIds: [tenantId],
      isVerified,
      isPrimary: false,
      timeJoinedInMSSinceEpoch: timeJoined,
      ...(input.hash
        ? { passwordHash: input.hash.passwordHash, hashingAlgorithm: input.hash.hashingAlgorithm }
        : { plainTextPassword: input.password }),
    };
    const body: Record<string, unknown> = {
      ...(input.externalUserId ? { externalUserId: input.externalUserId } : {}),
      ...(input.metadata ? { userMetadata: input.metadata } : {}),
      ...(input.withRole ? { userRoles: [{ role, tenantIds: ['public'] }] } : {}),
      loginMethods: [loginMethod],
    };
    return {
      label: input.label,
      importedEmail: input.importedEmail,
      email: input.importedEmail.trim().toLowerCase(),
      password: input.password,
      tenantId,
      ...(input.externalUserId ? { externalUserId: input.externalUserId } : {}),
      withRole: input.withRole ?? false,
      ...(input.metadata ? { metadata: input.metadata } : {}),
      isVerified,
      timeJoined,
      body,
      secrets: [input.password, ...(input.hash ? [input.hash.passwordHash, ...(input.hash.extraSecrets ?? [])] : [])],
    };
  });
}

/** The same address with different case and surrounding blanks. */
export function emailVariant(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `  ${local.toUpperCase()}@${domain.charAt(0).toUpperCase()}${domain.slice(1)}\t`;
}
