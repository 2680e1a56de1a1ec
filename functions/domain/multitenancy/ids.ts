import { BadRequestError } from '#functions/shared/errors.js';
import { checkIdLength } from '#functions/shared/id-limits.js';

const ID_PATTERN = /^[a-z0-9-]+$/;
const RESERVED_TENANT_IDS = new Set(['recipe', 'config', 'users', 'hello']);

/** Normalises and validates a body `appId` (docs/reference-behaviour.md "App ids"): trimmed, lower-cased. */
export function normaliseAppId(raw: string): string {
  const id = raw.trim().toLowerCase();
  if (id === '') throw new BadRequestError('appId should not be an empty String');
  if (id.startsWith('appid-')) throw new BadRequestError("appId must not start with 'appid-'");
  if (!ID_PATTERN.test(id)) throw new BadRequestError('appId can only contain letters, numbers and hyphens');
  checkIdLength('appId', id);
  return id;
}

/** Normalises and validates a body `tenantId` (docs/reference-behaviour.md "Tenant ids"): trimmed, lower-cased. */
export function normaliseTenantId(raw: string): string {
  const id = raw.trim().toLowerCase();
  if (id === '') throw new BadRequestError('tenantId should not be an empty String');
  if (RESERVED_TENANT_IDS.has(id)) throw new BadRequestError(`Cannot use '${id}' as a tenantId`);
  if (id.startsWith('appid-')) throw new BadRequestError("tenantId must not start with 'appid-'");
  if (!ID_PATTERN.test(id)) throw new BadRequestError('tenantId can only contain letters, numbers and hyphens');
  checkIdLength('tenantId', id);
  return id;
}
