/**
 * The import payload itself (`{"users":[…]}`, a JSON array of users, or NDJSON of users): passed
 * through as written; the core validates it.
 */
import type { WireImportUser } from '../contract.js';
import { isJsonObject } from '../contract.js';
import { usageError } from '../errors.js';
import { idText } from './common.js';
import { type Conversion, converted, rejected } from './conversion.js';
import { convertingAlone, type SourceDefinition } from './source.js';

export const supertokens: SourceDefinition = {
  name: 'supertokens',
  flags: [],
  layout: (detected, exportPath) => {
    if (detected === 'csv')
      throw usageError(`${exportPath} is not JSON: --from supertokens reads {"users":[…]}, a JSON array or NDJSON`);
    return detected;
  },
  open: convertingAlone(convertSupertokens),
};

export function convertSupertokens(record: unknown): Conversion {
  if (!isJsonObject(record)) return rejected(undefined, 'the user is not a JSON object');
  const externalId = idText(record.externalUserId);
  if (!Array.isArray(record.loginMethods)) return rejected(externalId, 'loginMethods is missing or not an array');
  return converted(record as unknown as WireImportUser, externalId);
}
