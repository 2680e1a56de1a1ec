/**
 * What every multitenancy use case starts from: who calls, which API version answers, and the
 * dependencies. The use cases, file by file, are listed in docs/multitenancy.md "Files in order".
 */
import type { ConfigValues } from '#functions/config/index.js';
import type { AppDataPurger, AppTables, TenantStore } from './ports.js';
import type { TenantRecord } from './tenant.js';

/**
 * Who calls: the path's app and tenant. The request pipeline has checked that they exist, except
 * for `getTenant` (functions/domain/multitenancy/tenants.ts), which answers for a missing tenant itself.
 */
export interface Caller {
  readonly appId: string;
  readonly tenantId: string;
  /** The caller's tenant as loaded by the pipeline (undefined when it does not exist). */
  readonly tenant: TenantRecord | undefined;
  readonly cdiAtLeast5: boolean;
}

/** The `/v2` routes (factor lists) or the legacy ones (recipe switches). */
export type ApiVersion = 'v2' | 'legacy';

export interface Deps {
  readonly store: TenantStore;
  /** The stores of everything apps own, for app and tenant removal. */
  readonly purger: AppDataPurger;
  /** The tables apps keep their data in, for `dynamodb_table_name`. */
  readonly tables: AppTables;
  readonly now: () => number;
  /** The base configuration (file + environment), against which overrides are validated. */
  readonly baseConfig: () => Promise<ConfigValues>;
  /**
   * Why the core must not call a URL's host as it resolves now (`<host> resolves to …`), or
   * undefined (also when the lookup gives no answer: every request checks again).
   */
  readonly outboundTargetProblem: (url: string) => Promise<string | undefined>;
}
