/**
 * Use case `POST /bulk-import/users?dryRun=true`: the staging request's validation (same 400s),
 * then, for a valid request, what the import worker would write for each user — found without
 * writing anything. Each user's import is built exactly as THE import function builds it (feature
 * checks, size check, the atomic write's plan) and its transaction previewed by reads, in request
 * order: a user needing an account info, an external id … that the app already has, or that an
 * earlier user of the same request would take, fails with the import worker's message for it.
 */
import {
  failureMessages,
  featureFailure,
  type ImportConfig,
  importPlan,
  importRecords,
  tooLargeMessage,
} from '#functions/domain/import/import-user.js';
import { MAX_ACTIONS_PER_WRITE, type UserStore, type UserWrite } from '#functions/domain/users/ports.js';
import { checkTimeLeft } from '#functions/shared/call-budget.js';
import { JsonBadRequestError } from '#functions/shared/errors.js';
import type { ImportUser } from '../import/types.js';
import { scrubSecrets } from './scrub-credentials.js';
import { validateStagingRequest } from './validate-request.js';
import type { ImportValidationContext } from './validate-user.js';

interface DryRunConflict {
  /** Position in the request's `users` array. */
  readonly index: number;
  readonly externalUserId?: string;
  /** The messages the import would write on the user's staged row, one per problem. */
  readonly errors: string[];
}

export interface DryRunBody {
  readonly status: 'OK';
  readonly dryRun: true;
  /** Users that would be imported (no conflict). */
  readonly wouldImport: number;
  readonly conflicts: DryRunConflict[];
}

/** The answer to a dry run of an empty list (for any app; clients probe dry-run support with it). */
export const EMPTY_DRY_RUN_BODY: Readonly<DryRunBody> = Object.freeze({
  status: 'OK',
  dryRun: true,
  wouldImport: 0,
  conflicts: [],
});

export interface DryRunDeps {
  /** The app's users (reads only). */
  readonly users: UserStore;
}

/** Why the import would refuse this user before writing (feature switches, size); undefined when it would try. */
function refusalOf(user: ImportUser, config: ImportConfig, write: UserWrite): string[] | undefined {
  const refused = featureFailure(user, config);
  if (refused?.kind === 'failed') return [...refused.errors];
  if (write.actionCount > MAX_ACTIONS_PER_WRITE) return [tooLargeMessage(write.actionCount)];
  return undefined;
}

export async function dryRunRequest(
  deps: DryRunDeps,
  appId: string,
  users: readonly unknown[],
  validation: ImportValidationContext,
  config: ImportConfig,
): Promise<DryRunBody> {
  const result = validateStagingRequest(users, validation);
  if (!result.ok) throw new JsonBadRequestError(result.body);
  const valid = result.users;

  const errors = new Map<number, string[]>();
  // Built one at a time as the preview takes them (10,000 writes held at once are mostly garbage).
  const tried: number[] = [];
  function* writes(): Generator<UserWrite> {
    for (const [index, user] of valid.entries()) {
      // The reads grow with the users: the request's time is checked as the preview takes them.
      if (index % 100 === 99) checkTimeLeft('checking the users against the app');
      const write = deps.users.newWrite(appId);
      write.add(importPlan(user, importRecords(user)));
      const refused = refusalOf(user, config, write);
      if (refused) errors.set(index, refused);
      else {
        tried.push(index);
        yield write;
      }
    }
  }
  const previews = await deps.users.previewCommits(writes());
  previews.forEach((preview, i) => {
    const index = tried[i] as number;
    // A failure without a message (the user's own fresh ids) is not one the import would report.
    const messages = preview.ok ? [] : failureMessages(preview.failed);
    if (messages.length > 0) errors.set(index, messages);
  });

  const conflicts = [...errors.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, messages]): DryRunConflict => {
      const user = valid[index] as ImportUser;
      return {
        index,
        ...(user.externalUserId !== undefined ? { externalUserId: user.externalUserId } : {}),
        errors: messages.map((m) => scrubSecrets(m, user)),
      };
    });
  return { status: 'OK', dryRun: true, wouldImport: valid.length - conflicts.length, conflicts };
}
