/**
 * What every passwordless use case starts from: its dependencies, the tenant the request names,
 * the check that passwordless sign-in is allowed there, and the rounds a use case gives a device
 * that keeps changing under it. The use cases themselves, in the order a sign-in meets them, are
 * listed in docs/passwordless.md "Files in order".
 */

import { recipeAllowed } from '#functions/domain/multitenancy/factors.js';
import type { TenantRecord } from '#functions/domain/multitenancy/tenant.js';
import { ForbiddenError } from '#functions/shared/errors.js';
import type { RereadPolicy } from '#functions/shared/rereads.js';
import type { PasswordlessSettings, TenantRef } from './model.js';
import type { PasswordlessStore } from './ports.js';

export interface PasswordlessDeps {
  readonly store: PasswordlessStore;
  /** The request's tenant settings (`passwordless_code_lifetime`, `passwordless_max_code_input_attempts`). */
  readonly settings: PasswordlessSettings;
  readonly now: () => number;
  /** A fresh UUID (code ids). */
  readonly newId: () => string;
  /** Cryptographically random bytes (device ids, link code salts). */
  readonly randomBytes: (size: number) => Buffer;
  /** A cryptographically random digit, 0 … 9, uniformly (generated user input codes). */
  readonly randomDigit: () => number;
}

/** The tenant a request names, with what decides whether passwordless sign-in is allowed there. */
export interface PasswordlessTarget extends TenantRef {
  /** The tenant's record (its login-method switches), when it exists. */
  readonly tenant: TenantRecord | undefined;
  readonly cdiVersion: string;
}

export const RESTART_FLOW = { status: 'RESTART_FLOW_ERROR' } as const;

/** Rounds of read-decide-write before a use case gives up on a device that keeps changing under it. */
export function rounds(exhausted: string): RereadPolicy {
  return { attempts: 10, exhausted: `passwordless: ${exhausted}` };
}

/** The tenant alone (a target also carries its record and the CDI version). */
export const tenantOf = (target: TenantRef): TenantRef => ({ appId: target.appId, tenantId: target.tenantId });

/**
 * The tenant of a request that creates, checks or consumes a code, after the reference's check:
 * from CDI 5.1 passwordless is always allowed; before, the tenant's legacy switch and first
 * factors decide (403 otherwise).
 */
export function enabledTenant(target: PasswordlessTarget): TenantRef {
  if (!recipeAllowed(target.tenant, 'passwordless', target.cdiVersion)) {
    throw new ForbiddenError('Passwordless login not enabled for tenant');
  }
  return tenantOf(target);
}
