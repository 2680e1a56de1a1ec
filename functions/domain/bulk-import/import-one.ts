/**
 * Use case `POST /bulk-import/import` (docs/import-pipeline.md "Single import", lazy migration): validate one user
 * against its app, then run THE import function (the one the import worker runs).
 */

import { type ImportConfig, type ImportDeps, importUser } from '#functions/domain/import/import-user.js';
import type { UsersDeps } from '#functions/domain/users/deps.js';
import { getUser } from '#functions/domain/users/lookup.js';
import { JsonBadRequestError } from '#functions/shared/errors.js';
import { validateSingleImport } from './validate-request.js';
import type { ImportValidationContext } from './validate-user.js';

export interface ImportOneDeps {
  readonly import: ImportDeps;
  readonly users: UsersDeps;
  /** The app's roles, tenants and switches, read now. */
  readonly validation: ImportValidationContext;
}

/** `{status:"OK", user}`; a 400 with `{errors:[…]}` for an invalid user or a conflict. */
export async function importOneUser(
  deps: ImportOneDeps,
  request: { appId: string; body: unknown; config: ImportConfig },
): Promise<object> {
  const { appId, body, config } = request;
  const validation = validateSingleImport(body, deps.validation);
  if (!validation.ok) throw new JsonBadRequestError(validation.body);
  const outcome = await importUser(deps.import, { appId, user: validation.user, config });
  switch (outcome.kind) {
    case 'imported':
      return { status: 'OK', user: outcome.user };
    case 'already-imported':
      // Only possible when an earlier attempt of this very request committed (its ids are fresh).
      return getUser(deps.users, appId, validation.user.externalUserId ?? outcome.userId);
    case 'failed':
      throw new JsonBadRequestError({ errors: outcome.errors });
    case 'extra-write-failed':
      throw new Error('unexpected failure of a companion write');
  }
}
