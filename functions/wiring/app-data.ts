/** Wiring of the roles, metadata and TOTP use cases: the stores of the request's app, bound to it. */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { MetadataStore } from '#functions/domain/metadata/ports.js';
import type { RoleStore } from '#functions/domain/roles/ports.js';
import type { TotpStore } from '#functions/domain/totp/ports.js';
import { metadataStoreOf, roleStoreOf, totpStoreOf } from './stores.js';
import { appTable } from './tables.js';

/** The roles of one app: the domain cannot name another. */
export const roleStore = (config: EffectiveConfig, appId: string): RoleStore =>
  roleStoreOf(appTable(config)).forApp(appId);
/** The metadata of one app: the domain cannot name another. */
export const metadataStore = (config: EffectiveConfig, appId: string): MetadataStore =>
  metadataStoreOf(appTable(config)).forApp(appId);
/** The TOTP devices and attempt records of one app: the domain cannot name another. */
export const totpStore = (config: EffectiveConfig, appId: string): TotpStore =>
  totpStoreOf(appTable(config)).forApp(appId);
