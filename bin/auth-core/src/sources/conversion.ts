/**
 * What a converter makes of one source record: a user of the import payload (`WireImportUser`, the
 * wire type of functions/contract/import-payload.ts; docs/migrating.md "The import payload"), or the reasons it
 * cannot be one. Converters create users with a fixed key order, so the JSON of a chunk is
 * byte-identical from one run to the next (the Idempotency-Key replay needs that).
 */
import type { WireImportUser } from '../contract.js';

export type Conversion =
  | {
      readonly ok: true;
      readonly user: WireImportUser;
      /** The record's id in the source (also the external user id for provider exports). */
      readonly sourceId: string | undefined;
      /**
       * Second factors of the user that cannot be carried (one message each, never a secret): the user
       * goes in without them, and the report says so.
       */
      readonly factorsLeftBehind: readonly string[];
    }
  | { readonly ok: false; readonly sourceId: string | undefined; readonly reasons: string[] };

export function converted(
  user: WireImportUser,
  sourceId: string | undefined,
  factorsLeftBehind: readonly string[] = [],
): Conversion {
  return { ok: true, user, sourceId, factorsLeftBehind };
}

export function rejected(sourceId: string | undefined, ...reasons: string[]): Conversion {
  return { ok: false, sourceId, reasons };
}
