import { passwordMigrationStatus } from '#functions/domain/password-hook/readiness.js';
import { httpHandler, ok } from '#functions/http/pipeline.js';
import { usersDeps } from '#functions/wiring/users.js';

/** `GET /appid-<a>/password-migration/status` → `{status:"OK", pending, migrated}` (docs/password-migration-hook.md). */
export const handler = httpHandler({
  route: { id: 'password-migration-status', scope: 'app' },
  run: async (_input, { appId, config }) => ok(await passwordMigrationStatus(usersDeps(config).store, appId)),
});
