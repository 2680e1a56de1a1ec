/**
 * The user-management dashboard's own users and their sessions (docs/dashboard.md): the
 * reference core's `/recipe/dashboard/*` routes. Dashboard users sign in with an email and a
 * password, hashed with the app's algorithm like any user's; a sign-in answers a session id, which
 * the SDK's `Dashboard` recipe sends back on every dashboard API call to have it verified here.
 * Only the session id's SHA-256 digest is stored.
 *
 * The requests are read before the app is looked up, with the reference's messages and order: by
 * the schemas of ./input.ts, and by the `parse…` readers below for user creation and update (whose
 * early answers come between two fields).
 */
import { createHash, randomUUID } from 'node:crypto';
import { BadRequestError } from '#functions/shared/errors.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';
import { optionalString, requiredString } from '#functions/shared/input.js';
import { READ_AGAIN, reread } from '#functions/shared/rereads.js';
import type { PasswordPorts } from '../users/deps.js';
import { holdFailureToFloor } from '../users/sign-in.js';
import { EITHER, emailOf, nonEmpty } from './input.js';
import type { DashboardSession, DashboardStore, DashboardUser } from './ports.js';
import { dashboardPasswordProblem, isValidDashboardEmail } from './rules.js';

type Body = Readonly<Record<string, unknown>>;

/** How long a dashboard session lasts: 30 days, as in the reference. */
export const DASHBOARD_SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/** The reference's column width for a dashboard user's email (`VARCHAR(256)`); longer ones are refused here. */
const DASHBOARD_EMAIL_MAX_LENGTH = 256;

export interface DashboardDeps {
  readonly store: DashboardStore;
  /** Epoch milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** The dashboard's sign-in and user changes hash or verify passwords with the app's algorithm. */
export interface DashboardPasswordDeps extends DashboardDeps {
  readonly passwords: PasswordPorts;
}

/** A dashboard user as the routes show it: never its password hash. */
interface DashboardUserJson {
  readonly userId: string;
  readonly email: string;
  readonly timeJoined: number;
}

const toJson = (user: DashboardUser): DashboardUserJson => ({
  userId: user.userId,
  email: user.email,
  timeJoined: user.timeJoined,
});

const nowOf = (deps: DashboardDeps) => (deps.now ?? Date.now)();

/** The stored form of a session id. */
const sessionDigest = (sessionId: string) => createHash('sha256').update(sessionId, 'utf8').digest('base64url');

/** 400 for an email too long to be stored (the reference's column would refuse it). */
function checkEmailLength(email: string, field: string): void {
  if (email.length > DASHBOARD_EMAIL_MAX_LENGTH) {
    throw new BadRequestError(`Field name '${field}' is too long. Max length is ${DASHBOARD_EMAIL_MAX_LENGTH}.`);
  }
}

/** Ids and emails no dashboard user can have (this core's ids are UUIDs): nothing to look up. */
const couldBeUserId = (userId: string) => userId.length <= ID_LIMITS.userId;
const couldBeEmail = (email: string) => email.length <= DASHBOARD_EMAIL_MAX_LENGTH;

/** A route's answer decided from its input alone (`INVALID_EMAIL_ERROR`, `PASSWORD_WEAK_ERROR`). */
export interface EarlyAnswer {
  readonly early: { readonly status: string; readonly message?: string };
}
const INVALID_EMAIL: EarlyAnswer = { early: { status: 'INVALID_EMAIL_ERROR' } };
const weakPassword = (message: string): EarlyAnswer => ({ early: { status: 'PASSWORD_WEAK_ERROR', message } });

// ── sign-in and sessions ─────────────────────────────────────────────────────────────────────

export interface SignInInput {
  readonly email: string;
  readonly password: string;
}

/**
 * → `{status:"OK", sessionId}` (a new 30-day session) or `INVALID_CREDENTIALS_ERROR`; a failure
 * takes no less time than the dummy verify, whether the email is known or not (docs/security.md
 * "Sign-in timing").
 */
export async function signInDashboardUser(
  deps: DashboardPasswordDeps,
  appId: string,
  input: SignInInput,
): Promise<{ status: 'OK'; sessionId: string } | { status: 'INVALID_CREDENTIALS_ERROR' }> {
  const user = couldBeEmail(input.email) ? await deps.store.getUserByEmail(appId, input.email) : undefined;
  const started = deps.passwords.timing.now();
  let ranDummy = false;
  if (user === undefined) {
    await deps.passwords.dummyVerify(input.password);
    ranDummy = true;
  } else if ((await deps.passwords.verify(input.password, user.passwordHash)) === 'match') {
    const sessionId = randomUUID();
    const timeCreated = nowOf(deps);
    await deps.store.createSession(appId, sessionDigest(sessionId), {
      userId: user.userId,
      timeCreated,
      expiry: timeCreated + DASHBOARD_SESSION_LIFETIME_MS,
    });
    return { status: 'OK', sessionId };
  }
  await holdFailureToFloor(deps.passwords, started, input.password, ranDummy);
  return { status: 'INVALID_CREDENTIALS_ERROR' };
}

/** A session that exists and has not expired. */
async function liveSession(deps: DashboardDeps, appId: string, sessionId: string) {
  const session = await deps.store.getSession(appId, sessionDigest(sessionId));
  return session !== undefined && session.expiry >= nowOf(deps) ? session : undefined;
}

/**
 * → `{status:"OK"}` (with the user's `email` when `withEmail`: CDI 3.0 and later) while the
 * session is live and its user exists, else `INVALID_SESSION_ERROR`.
 */
export async function verifyDashboardSession(
  deps: DashboardDeps,
  appId: string,
  input: { sessionId: string; withEmail: boolean },
): Promise<{ status: 'OK'; email?: string } | { status: 'INVALID_SESSION_ERROR' }> {
  const session = await liveSession(deps, appId, input.sessionId);
  const user = session ? await deps.store.getUserById(appId, session.userId) : undefined;
  if (!user) return { status: 'INVALID_SESSION_ERROR' };
  return input.withEmail ? { status: 'OK', email: user.email } : { status: 'OK' };
}

/** → `{status:"OK"}`, whether or not the session existed. */
export async function revokeDashboardSession(deps: DashboardDeps, appId: string, input: { sessionId: string }) {
  await deps.store.deleteSession(appId, sessionDigest(input.sessionId));
  return { status: 'OK' as const };
}

/** → `{status:"OK", sessions:[{userId, timeCreated, expiry}]}`: the user's live sessions, oldest first. */
export async function listDashboardUserSessions(deps: DashboardDeps, appId: string, input: { userId: string }) {
  const now = nowOf(deps);
  const stored = couldBeUserId(input.userId) ? await deps.store.listSessions(appId, input.userId) : [];
  const sessions = stored
    .filter((s) => s.expiry >= now)
    .map((s: DashboardSession) => ({ userId: s.userId, timeCreated: s.timeCreated, expiry: s.expiry }));
  return { status: 'OK' as const, sessions };
}

// ── dashboard users ──────────────────────────────────────────────────────────────────────────

/** → `{status:"OK", users:[{userId, email, timeJoined}]}`, oldest first. */
export async function listDashboardUsers(deps: DashboardDeps, appId: string) {
  return { status: 'OK' as const, users: (await deps.store.listUsers(appId)).map(toJson) };
}

export interface CreateUserInput {
  readonly email: string;
  readonly password: string;
}

/**
 * `POST /recipe/dashboard/user` body, in the reference's order: `email` (then
 * `INVALID_EMAIL_ERROR` for one it refuses), `password` (then `PASSWORD_WEAK_ERROR`).
 */
export function parseCreateDashboardUser(body: Body): CreateUserInput | EarlyAnswer {
  const email = emailOf(requiredString(body, 'email'), 'email');
  if (!isValidDashboardEmail(email)) return INVALID_EMAIL;
  const password = nonEmpty(requiredString(body, 'password'), 'password');
  const problem = dashboardPasswordProblem(password);
  if (problem) return weakPassword(problem);
  checkEmailLength(email, 'email');
  return { email, password };
}

/** A fresh user id that another user took between the id's draw and the write: draw again. */
const CREATE = { attempts: 3, exhausted: 'dashboard user creation kept drawing user ids already taken' };

/** → `{status:"OK", user}` or `EMAIL_ALREADY_EXISTS_ERROR`. */
export async function createDashboardUser(deps: DashboardPasswordDeps, appId: string, input: CreateUserInput) {
  const taken = { status: 'EMAIL_ALREADY_EXISTS_ERROR' as const };
  // The reference looks the email up before it hashes anything.
  if (await deps.store.getUserByEmail(appId, input.email)) return taken;
  const passwordHash = await deps.passwords.hash(input.password);
  return reread(CREATE, async () => {
    const user: DashboardUser = { userId: randomUUID(), email: input.email, passwordHash, timeJoined: nowOf(deps) };
    const outcome = await deps.store.createUser(appId, user);
    if (outcome === 'id-taken') return READ_AGAIN;
    return outcome === 'email-taken' ? taken : { status: 'OK' as const, user: toJson(user) };
  });
}

/** Which dashboard user a request names: by `userId`, else by `email`. */
type UserRef = { readonly userId: string } | { readonly email: string };

export interface UpdateUserInput {
  readonly user: UserRef;
  readonly newEmail?: string;
  readonly newPassword?: string;
}

/**
 * `PUT /recipe/dashboard/user` body: `newEmail` and `newPassword` (optional, checked as at
 * creation, `INVALID_EMAIL_ERROR` / `PASSWORD_WEAK_ERROR`), and the user by `userId`, else by
 * `email`; neither is 400 `Either field 'email' or 'userId' must be present`.
 */
export function parseUpdateDashboardUser(body: Body): UpdateUserInput | EarlyAnswer {
  const rawNewEmail = optionalString(body, 'newEmail');
  const newEmail = rawNewEmail === undefined ? undefined : emailOf(rawNewEmail, 'newEmail');
  if (newEmail !== undefined && !isValidDashboardEmail(newEmail)) return INVALID_EMAIL;
  const rawNewPassword = optionalString(body, 'newPassword');
  const newPassword = rawNewPassword === undefined ? undefined : nonEmpty(rawNewPassword, 'newPassword');
  const problem = newPassword === undefined ? undefined : dashboardPasswordProblem(newPassword);
  if (problem) return weakPassword(problem);
  if (newEmail !== undefined) checkEmailLength(newEmail, 'newEmail');
  const userId = optionalString(body, 'userId');
  const change = {
    ...(newEmail === undefined ? {} : { newEmail }),
    ...(newPassword === undefined ? {} : { newPassword }),
  };
  if (userId !== undefined) return { user: { userId: nonEmpty(userId, 'userId') }, ...change };
  const email = optionalString(body, 'email');
  if (email !== undefined) return { user: { email: emailOf(email, 'email') }, ...change };
  throw new BadRequestError(EITHER);
}

async function findUser(store: DashboardStore, appId: string, ref: UserRef): Promise<DashboardUser | undefined> {
  if ('userId' in ref) return couldBeUserId(ref.userId) ? store.getUserById(appId, ref.userId) : undefined;
  return couldBeEmail(ref.email) ? store.getUserByEmail(appId, ref.email) : undefined;
}

const CHANGE = { attempts: 5, exhausted: 'the dashboard user kept changing while it was being updated' };

/**
 * → `{status:"OK", user}` (the user as changed), `EMAIL_ALREADY_EXISTS_ERROR` (another dashboard
 * user has the new email) or `UNKNOWN_USER_ERROR`. Every session of the user ends, as in the
 * reference, whatever changed.
 */
export async function updateDashboardUser(deps: DashboardPasswordDeps, appId: string, input: UpdateUserInput) {
  const unknown = { status: 'UNKNOWN_USER_ERROR' as const };
  const found = await findUser(deps.store, appId, input.user);
  if (!found) return unknown;
  const passwordHash = input.newPassword === undefined ? undefined : await deps.passwords.hash(input.newPassword);
  const outcome = await reread(CHANGE, async (attempt) => {
    const current = attempt === 0 ? found : await deps.store.getUserById(appId, found.userId);
    if (!current) return 'unknown' as const;
    const change = {
      ...(input.newEmail === undefined || input.newEmail === current.email ? {} : { email: input.newEmail }),
      ...(passwordHash === undefined ? {} : { passwordHash }),
    };
    if (Object.keys(change).length === 0) return 'updated' as const;
    const written = await deps.store.updateUser(appId, current, change);
    return written === 'changed' ? READ_AGAIN : written;
  });
  if (outcome === 'unknown') return unknown;
  if (outcome === 'email-taken') return { status: 'EMAIL_ALREADY_EXISTS_ERROR' as const };
  await deps.store.deleteSessionsOf(appId, found.userId);
  const updated = await deps.store.getUserById(appId, found.userId);
  return updated ? { status: 'OK' as const, user: toJson(updated) } : unknown;
}

const REMOVAL = { attempts: 5, exhausted: 'the dashboard user kept changing while it was being removed' };

/** → `{status:"OK", didUserExist}`; the user's sessions end with it. */
export async function deleteDashboardUser(deps: DashboardDeps, appId: string, input: { user: UserRef }) {
  const found = await findUser(deps.store, appId, input.user);
  if (!found) return { status: 'OK' as const, didUserExist: false };
  const removed = await reread(REMOVAL, async (attempt) => {
    const current = attempt === 0 ? found : await deps.store.getUserById(appId, found.userId);
    if (!current) return false;
    return (await deps.store.deleteUser(appId, current)) === 'deleted' ? true : READ_AGAIN;
  });
  await deps.store.deleteSessionsOf(appId, found.userId);
  return { status: 'OK' as const, didUserExist: removed };
}
