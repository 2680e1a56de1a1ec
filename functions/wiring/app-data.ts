/** Wiring of the roles, metadata and TOTP use cases: the stores of the request's app. */
import type { EffectiveConfig } from '#functions/config/index.js';
import type { MetadataStore } from '#functions/domain/metadata/ports.js';
import type { RoleStore } from '#functions/domain/roles/ports.js';
import type { TotpStore } from '#functions/domain/totp/ports.js';
import { appStores } from './stores.js';

export const roleStore = (config: EffectiveConfig): RoleStore => appStores(config).roles;
export const metadataStore = (config: EffectiveConfig): MetadataStore => appStores(config).metadata;
export const totpStore = (config: EffectiveConfig): TotpStore => appStores(config).totp;
