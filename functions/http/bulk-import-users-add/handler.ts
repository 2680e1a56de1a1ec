import { dryRunRequest, EMPTY_DRY_RUN_BODY } from '#functions/domain/bulk-import/dry-run.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_REPLAYED_HEADER,
  idempotencyKeyOf,
  requestDigest,
  stageRequestOnce,
} from '#functions/domain/bulk-import/idempotency.js';
import { EMPTY_STAGING_RESPONSE_BODY, stagingUsersOf } from '#functions/domain/bulk-import/validate-request.js';
import { Answer, type CoreRequest, type CoreResponse, httpHandler, ok } from '#functions/http/pipeline.js';
import { BadRequestError } from '#functions/shared/errors.js';
import { dryRunDeps, keyedStagingDeps } from '#functions/wiring/bulk-import.js';
import { importValidationContext } from '#functions/wiring/import.js';

/** 400 text for a `dryRun` query value other than true / false. */
const INVALID_DRY_RUN_MESSAGE = 'dryRun must be true or false';

type Input =
  | {
      readonly mode: 'stage';
      readonly users: unknown[];
      /** Undefined without the header: the request is staged under its body's digest. */
      readonly key: string | undefined;
      readonly digest: string;
    }
  | { readonly mode: 'dry-run'; readonly users: unknown[] };

function isDryRun(query: CoreRequest['query']): boolean {
  const value = query.dryRun;
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (lower !== 'true' && lower !== 'false') throw new BadRequestError(INVALID_DRY_RUN_MESSAGE);
  return lower === 'true';
}

function readInput({ body, query, headers, bodyDigest }: CoreRequest): Input | Answer {
  const dryRun = isDryRun(query);
  // A dry run writes nothing, so it remembers nothing: its Idempotency-Key is ignored.
  const key = dryRun ? undefined : idempotencyKeyOf(headers[IDEMPOTENCY_KEY_HEADER]);
  const users = stagingUsersOf(body);
  if (users.length === 0) return new Answer(ok(dryRun ? EMPTY_DRY_RUN_BODY : EMPTY_STAGING_RESPONSE_BODY));
  if (dryRun) return { mode: 'dry-run', users };
  return { mode: 'stage', users, key, digest: bodyDigest ?? requestDigest(new Uint8Array()) };
}

/**
 * `POST /bulk-import/users` (docs/reference-behaviour.md "Staging users"). The body checks precede the app checks (empty → 200 for
 * any app); then the app and tenant must exist and the tenant be public, in the reference's order.
 * With `Idempotency-Key` the request is staged at most once per key (a repeat replays its answer);
 * without one it is staged under its body's digest until answered (a repeat of a request cut short
 * stages only the rest); with `?dryRun=true` it is validated and checked against the app's users,
 * and nothing is written.
 */
export const handler = httpHandler({
  route: {
    id: 'bulk-import-users-add',
    scope: 'tenant',
    exists: 'after-input',
    publicTenantOnly: true,
    largeBody: true,
    digestBody: requestDigest,
  },
  input: readInput,
  run: async (input, { appId, config }): Promise<CoreResponse> => {
    const validation = () => importValidationContext(appId, config);
    if (input.mode === 'dry-run') {
      return ok(await dryRunRequest(dryRunDeps(config), appId, input.users, await validation(), config));
    }
    const outcome = await stageRequestOnce(keyedStagingDeps(config), appId, input, validation);
    if (outcome.kind === 'busy') {
      return { statusCode: 409, text: outcome.message, headers: { 'retry-after': String(outcome.retryAfterSeconds) } };
    }
    return {
      statusCode: outcome.answer.status,
      json: outcome.answer.body,
      ...(outcome.replayed ? { headers: { [IDEMPOTENCY_REPLAYED_HEADER]: 'true' } } : {}),
    };
  },
});
