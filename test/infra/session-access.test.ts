/**
 * Who may touch sessions and signing keys (docs/sessions.md "Least privilege"): the manifest's
 * `access.sessions` names the session routes, app removal, user removal, linking and unlinking,
 * creating and removing id mappings and leaving a tenant only, and of those only
 * the routes that sign tokens get the credentials key (to open private keys and seal new ones), and
 * the two JWKS routes may seal (they make an app's first keys) but never open.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.js';

const SIGNING = ['session-create', 'session-verify', 'session-refresh', 'session-regenerate', 'jwt-create'];
const KEY_MAKING = ['jwks-public', 'jwt-jwks'];
const SESSIONS = [
  ...SIGNING,
  'app-remove',
  'user-remove',
  'accountlinking-link',
  'accountlinking-unlink',
  // Read whether an id has live sessions (a mapping change is refused then) / end the sessions of a
  // user leaving a tenant.
  'userid-map-create',
  'userid-map-remove',
  'tenant-user-remove',
  'session-get',
  'session-user',
  'session-remove',
  'session-data-put',
  'jwt-data-put',
  'jwks-public',
  'jwt-jwks',
];

describe('session and signing-key access in the manifest', () => {
  it('is declared by the session routes, app and user removal, linking, mappings and leaving a tenant only', () => {
    expect(
      ROUTES.filter((r) => r.access.sessions)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...SESSIONS].sort());
  });

  it('opens private keys only where tokens are signed; the JWKS routes only seal', () => {
    for (const route of ROUTES.filter((r) => r.access.sessions)) {
      const expected = SIGNING.includes(route.id)
        ? 'seal-and-open'
        : KEY_MAKING.includes(route.id)
          ? 'seal'
          : undefined;
      expect(route.access.credentials, route.id).toBe(expected);
    }
  });
});
