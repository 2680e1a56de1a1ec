/**
 * What every session use case is given (`SessionDeps`: the app's session store, its key ring, the
 * users for the ids tokens carry, the app's session settings and the clock), and the answers the
 * session routes share (docs/sessions.md "Routes").
 */
import type { SessionSettings } from '#functions/config/index.js';
import type { UserStore } from '../users/ports.js';
import type { KeyRing } from './key-ring.js';
import type { JsonObject, SessionRecord } from './model.js';
import type { SessionStore } from './ports.js';

export interface SessionDeps {
  readonly sessions: SessionStore;
  readonly keys: KeyRing;
  /** Reads users to put primary and recipe user ids (external where mapped) in tokens. */
  readonly users: Pick<UserStore, 'getUserBySuperTokensId' | 'getMappingByExternalId'>;
  readonly settings: SessionSettings;
  readonly now: () => number;
}

/** A token as the routes answer it: the token, and its expiry and creation in epoch ms. */
export interface TokenJson {
  readonly token: string;
  readonly expiry: number;
  readonly createdTime: number;
}

/** A session as the routes answer it. */
export interface SessionJson {
  readonly handle: string;
  readonly userId: string;
  readonly recipeUserId: string;
  readonly userDataInJWT: JsonObject;
  readonly tenantId: string;
}

/** A session as far as tokens name it. */
export type SessionIds = Pick<SessionRecord, 'handle' | 'userId' | 'recipeUserId' | 'tenantId'>;

export const sessionJson = (s: SessionIds, userDataInJWT: JsonObject): SessionJson => ({
  handle: s.handle,
  userId: s.userId,
  recipeUserId: s.recipeUserId,
  userDataInJWT,
  tenantId: s.tenantId,
});

/** The message of `GET /recipe/session`, regenerate and the data routes when there is no live session. */
export const NO_SESSION = 'Session does not exist.';

/** Why a token the core did not issue as a session's (a JWT of the JWT recipe) is refused by a session route. */
export const NOT_THIS_SESSION = 'Not an access token issued for this session';

export const unauthorised = (message: string) => ({ status: 'UNAUTHORISED' as const, message });
export const tryRefresh = (message: string) => ({ status: 'TRY_REFRESH_TOKEN' as const, message });
