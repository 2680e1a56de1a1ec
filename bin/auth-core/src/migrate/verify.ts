/**
 * `--verify <file>`: a sign-in check after the import. The file holds a few accounts whose passwords
 * the team knows (test accounts made in the old system before the export): a CSV with a header naming
 * `email` and `password`, or NDJSON of `{"email","password"}`. After the import each is signed in
 * through the core (`POST /appid-<app>/<tenant>/recipe/signin`), and every failure is named with the
 * hash family its user was imported with and the likely cause. The passwords are held in memory
 * only: no message, summary, report or state line quotes one (docs/migration-command.md
 * "Checking sign-ins").
 */
import { readFile, stat } from 'node:fs/promises';
import { parse as parseCsv } from 'csv-parse/sync';
import { type HashingAlgorithm, normaliseEmail, type WireImportUser } from '../contract.js';
import type { CoreClient } from '../core-client.js';
import { CliError, usageError } from '../errors.js';
import { excerpt, registerSecret } from '../redact.js';

/** A verify file is a few accounts, not an export. */
const MAX_VERIFY_ACCOUNTS = 1000;
const MAX_VERIFY_BYTES = 1024 * 1024;

export interface VerifyAccount {
  readonly email: string;
  readonly password: string;
}

/** How the user of an email was imported: its password hash's family, pending the hook, or no password. */
export type StoredFamily = HashingAlgorithm | 'pending' | 'none';

interface VerifyFailure {
  readonly email: string;
  /** The family the export's user was converted with; null when no user of the export has the email. */
  readonly hashFamily: StoredFamily | null;
  /** What the core answered (`WRONG_CREDENTIALS_ERROR`, `503`, …). */
  readonly answer: string;
  readonly likelyCause: string;
}

export interface VerifySummary {
  readonly file: string;
  readonly checked: number;
  readonly signedIn: number;
  readonly failures: VerifyFailure[];
}

/**
 * The accounts of a verify file's text; a usage error naming the line (and never a password) for
 * anything else: no header with `email` and `password`, an account without either, the same email
 * twice, more than MAX_VERIFY_ACCOUNTS accounts.
 */
export function parseVerifyFile(content: string, path: string): VerifyAccount[] {
  const body = content.replace(/^\uFEFF/, '');
  const first = body.trimStart();
  const accounts = first.startsWith('{') ? ndjsonAccounts(body, path) : csvAccounts(body, path);
  if (accounts.length === 0) throw usageError(`--verify ${path} holds no accounts`);
  if (accounts.length > MAX_VERIFY_ACCOUNTS)
    throw usageError(`--verify ${path} holds ${accounts.length} accounts: at most ${MAX_VERIFY_ACCOUNTS} are checked`);
  const seen = new Set<string>();
  for (const [i, account] of accounts.entries()) {
    if (seen.has(account.email)) throw usageError(`--verify ${path}: account ${i + 1} repeats an email given before`);
    seen.add(account.email);
  }
  return accounts;
}

function account(email: unknown, password: unknown, where: string): VerifyAccount {
  if (typeof email !== 'string' || email.trim() === '') throw usageError(`${where} has no email`);
  if (typeof password !== 'string' || password === '') throw usageError(`${where} has no password`);
  return { email: normaliseEmail(email.trim()), password };
}

function ndjsonAccounts(body: string, path: string): VerifyAccount[] {
  const out: VerifyAccount[] = [];
  for (const [i, line] of body.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    const where = `--verify ${path}: line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw usageError(`${where} is not valid JSON`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw usageError(`${where} is not a JSON object`);
    const record = value as Record<string, unknown>;
    out.push(account(record.email, record.password, where));
  }
  return out;
}

function csvAccounts(body: string, path: string): VerifyAccount[] {
  let rows: string[][];
  try {
    rows = parseCsv(body, { relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    // csv-parse names the line; its message never quotes a whole field.
    const line = (error as { lines?: number }).lines;
    throw usageError(`--verify ${path} is not readable as CSV${line === undefined ? '' : ` (line ${line})`}`);
  }
  const header = (rows[0] ?? []).map((cell) => cell.trim().toLowerCase());
  const emailColumn = header.indexOf('email');
  const passwordColumn = header.indexOf('password');
  if (emailColumn < 0 || passwordColumn < 0)
    throw usageError(
      `--verify ${path} needs a header naming the columns email and password (a CSV), or one {"email","password"} object per line (NDJSON)`,
    );
  return rows
    .slice(1)
    .map((row, i) => account(row[emailColumn], row[passwordColumn], `--verify ${path}: row ${i + 2}`));
}

/** Reads and checks a verify file before anything is staged; registers its passwords as secrets. */
export async function readVerifyFile(path: string): Promise<VerifyAccount[]> {
  let content: string;
  try {
    const size = (await stat(path)).size;
    if (size > MAX_VERIFY_BYTES)
      throw usageError(`--verify ${path} is ${size} bytes: a verify file is a few accounts (at most 1 MiB)`);
    content = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw usageError(`cannot read the verify file ${path}`);
  }
  const accounts = parseVerifyFile(content, path);
  for (const { password } of accounts) registerSecret(password);
  return accounts;
}

/** The families the verify file's emails were converted with, noted as the export is read. */
export class VerifyTargets {
  private readonly families = new Map<string, StoredFamily>();

  constructor(private readonly emails: ReadonlySet<string>) {}

  /** Notes the user's family for each of its emails the verify file names (the first user of an email wins). */
  note(user: WireImportUser): void {
    for (const method of user.loginMethods) {
      const email = typeof method.email === 'string' ? method.email : undefined;
      if (email === undefined || !this.emails.has(email)) continue;
      const family: StoredFamily =
        method.recipeId !== 'emailpassword'
          ? 'none'
          : method.passwordMigration === 'hook'
            ? 'pending'
            : (method.hashingAlgorithm ?? 'none');
      const known = this.families.get(email);
      if (known === undefined || (known === 'none' && family !== 'none')) this.families.set(email, family);
    }
  }

  familyOf(email: string): StoredFamily | undefined {
    return this.families.get(email);
  }
}

const SALTED_DIGESTS: ReadonlySet<string> = new Set(['MD5', 'SHA1', 'SHA256', 'SHA512']);

/** The likely cause of a failed sign-in, given how the user was imported and what the core answered. */
export function likelyCause(family: StoredFamily | null, answer: string, exists: boolean): string {
  if (!exists)
    return family === null
      ? 'no user of the export has this email (not in the export, or the address differs)'
      : 'the user is not in the core with a password: it was not imported (see the report)';
  if (answer === '503')
    return family === 'pending'
      ? 'pending, the hook is unavailable (the core answered 503): check password_migration_hook_url and the legacy endpoint, then run the check again'
      : 'the core is unavailable (503): run the check again';
  if (answer !== 'WRONG_CREDENTIALS_ERROR') return `the core answered ${answer}`;
  if (family === 'pending')
    return 'pending, the hook said no (PASSWORD_MISMATCH): the legacy endpoint does not know this password (a wrong password in the verify file, or the endpoint checks another store)';
  if (family === 'FIREBASE_SCRYPT')
    return "a wrong Firebase signer key: the hash config (base64_signer_key, and with it the salt separator, rounds and mem_cost) is not the one of the Firebase project the export comes from — the app's firebase_password_hashing_signer_key was set from it";
  if (family !== null && SALTED_DIGESTS.has(family))
    return 'the salt on the wrong side: the pf= template puts {SALT} before {PASSWORD} where the old system put it after (or the reverse), or misses a separator or pepper';
  if (family === 'none' || family === null)
    return 'the user was imported without a password (a social or passwordless login): it cannot sign in with one';
  return `the ${family} hash does not match the password: the hash export is older than the password (changed since), or the verify file's password is wrong`;
}

/** Whether the core holds a user with an email-and-password login method for `email` in the tenant. */
async function passwordUserExists(client: CoreClient, tenantId: string, email: string): Promise<boolean> {
  const reply = client.checked(
    await client.request(
      'GET',
      client.appPath(`/users/by-accountinfo?email=${encodeURIComponent(email)}&doUnionOfAccountInfo=false`, tenantId),
      { attempts: 3 },
    ),
    'looking up a verify account',
  );
  const users = (reply.json as { users?: unknown } | undefined)?.users;
  if (!Array.isArray(users)) return false;
  return users.some(
    (user) =>
      typeof user === 'object' &&
      user !== null &&
      Array.isArray((user as { loginMethods?: unknown }).loginMethods) &&
      (user as { loginMethods: Array<{ recipeId?: unknown; email?: unknown }> }).loginMethods.some(
        (m) => m.recipeId === 'emailpassword' && m.email === email,
      ),
  );
}

/**
 * Signs each account in through the core, one at a time (a few accounts; a pending user's first
 * sign-in calls the hook, which then stores the password under the app's algorithm).
 */
export async function verifySignIns(
  client: CoreClient,
  tenantId: string,
  accounts: readonly VerifyAccount[],
  targets: VerifyTargets,
  file: string,
): Promise<VerifySummary> {
  const failures: VerifyFailure[] = [];
  for (const { email, password } of accounts) {
    // Not retried: a 503 for a pending user means the hook is unavailable, and every retry would call it again.
    const answered = await client.request('POST', client.appPath('/recipe/signin', tenantId), {
      body: JSON.stringify({ email, password }),
      attempts: 1,
    });
    // 503 is an answer here (a pending user's hook unavailable), not the core failing.
    const reply = answered.status === 503 ? answered : client.checked(answered, 'signing a verify account in');
    const status = (reply.json as { status?: unknown } | undefined)?.status;
    if (reply.status === 200 && status === 'OK') continue;
    const answer = reply.status === 200 && typeof status === 'string' ? status.slice(0, 60) : String(reply.status);
    const family = targets.familyOf(email) ?? null;
    const exists = answer === 'WRONG_CREDENTIALS_ERROR' ? await passwordUserExists(client, tenantId, email) : true;
    failures.push({
      email,
      hashFamily: family,
      answer: reply.status === 200 ? answer : `${answer} ${excerpt(reply.text, 80)}`.trim(),
      likelyCause: likelyCause(family, answer, exists),
    });
  }
  return { file, checked: accounts.length, signedIn: accounts.length - failures.length, failures };
}
