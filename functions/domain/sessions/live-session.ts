/**
 * The one rule "an expired session is absent" (docs/sessions.md "Storage"): DynamoDB's TTL removes
 * an ended session only within days, so every use case reads a session through `liveSession`, and
 * the store's own lists apply `isLive` (model.ts) to the items they find.
 */
import type { SessionDeps } from './deps.js';
import { isLive, type SessionRecord } from './model.js';

/** Longer than any handle this core makes (a UUID, `_`, a tenant id of at most 64): never a session. */
export const MAX_HANDLE_LENGTH = 128;

/** The session by handle, or undefined when there is none or it has expired (a handle too long to be one is not read). */
export async function liveSession(
  deps: SessionDeps,
  appId: string,
  handle: string,
): Promise<SessionRecord | undefined> {
  if (handle.length > MAX_HANDLE_LENGTH) return undefined;
  const session = await deps.sessions.get(appId, handle);
  return session && isLive(session.expiresAt, deps.now()) ? session : undefined;
}
