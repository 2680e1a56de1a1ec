/** Payloads: bulk-import users (one emailpassword login method) with a given hash or a plain password. */
import { bcrypt } from 'hash-wasm';

export type Credential =
  | { readonly kind: 'hash'; readonly passwordHash: string; readonly hashingAlgorithm: 'BCRYPT' | 'ARGON2' }
  | { readonly kind: 'plain'; readonly plainTextPassword: string };

export function importUsers(prefix: string, count: number, credential: Credential) {
  return Array.from({ length: count }, (_, i) => ({
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: `${prefix}-${i}@example.com`,
        ...(credential.kind === 'hash'
          ? { passwordHash: credential.passwordHash, hashingAlgorithm: credential.hashingAlgorithm }
          : { plainTextPassword: credential.plainTextPassword }),
      },
    ],
  }));
}

/** One cheap (cost 4) BCrypt hash shared by the users: importing a given hash does no hashing. */
export async function cheapBcryptHash(password: string): Promise<string> {
  const salt = new Uint8Array(16);
  crypto.getRandomValues(salt);
  return bcrypt({ password, salt, costFactor: 4, outputType: 'encoded' });
}

/** A short random id (letters and digits) for app ids and email prefixes. */
export function shortId(length = 8): string {
  return Array.from({ length }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 36)]).join('');
}
