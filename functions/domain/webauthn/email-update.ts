/**
 * `PUT /<t>/recipe/webauthn/user/email` `{recipeUserId, email}` (docs/passkeys.md "Changing the
 * email"): the email of a webauthn login method. One transaction rewrites the user: the email's
 * uniqueness items among the webauthn users of its tenants move (a taken email fails their
 * conditional writes), a primary user's reservations move with them, and the verification states
 * follow the same rule as an email/password user's email change (accounts/update-user.ts).
 */
import { READ_AGAIN, type RereadPolicy, reread } from '#functions/shared/rereads.js';
import { withMethod } from '../accounts/deps.js';
import { verificationMove } from '../accounts/update-user.js';
import { resolveUser } from '../users/lookup.js';
import { writePlan } from '../users/write.js';
import type { WebauthnDeps } from './deps.js';

const UPDATE_REREADS: RereadPolicy = {
  attempts: 5,
  exhausted: 'the webauthn user kept changing while its email was being updated',
};

/**
 * `UNKNOWN_USER_ID_ERROR` when the id names no webauthn login method, `EMAIL_ALREADY_EXISTS_ERROR`
 * when a webauthn user of one of its tenants has the email, and — the reference's status for a
 * primary user's email that another primary user holds — `USER_WITH_EMAIL_ALREADY_EXISTS_ERROR`.
 */
export async function updateWebauthnEmail(
  deps: WebauthnDeps,
  input: { readonly recipeUserId: string; readonly email: string },
) {
  return reread(UPDATE_REREADS, async () => {
    const found = await resolveUser(deps.users, deps.appId, input.recipeUserId);
    const ownerId = found?.superTokensId;
    const method = found?.user.loginMethods.find((lm) => lm.recipeUserId === ownerId && lm.recipeId === 'webauthn');
    if (!found || !method || ownerId === undefined) return { status: 'UNKNOWN_USER_ID_ERROR' as const };
    if (method.email === input.email) return { status: 'OK' as const };
    const move = await verificationMove(deps.tokens, found.user, ownerId, input.email);
    const after = withMethod(found.user, ownerId, (lm) => ({ ...lm, email: input.email, verified: move.newVerified }));
    const result = await writePlan(
      deps.users.store,
      deps.appId,
      { changes: [{ before: found.user, after }] },
      { account: move.writes },
    );
    if (result.ok) return { status: 'OK' as const };
    const failed = new Set(result.failed.map((e) => e.kind));
    if (failed.has('primaryAccountInfo')) return { status: 'USER_WITH_EMAIL_ALREADY_EXISTS_ERROR' as const };
    if (failed.has('uniqueEmail')) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' as const };
    if ([...failed].every((kind) => kind === 'user' || kind === 'verifiedEmail')) return READ_AGAIN;
    throw new Error(`webauthn email update failed: ${[...failed].join(', ')}`);
  });
}
