/**
 * The import payload itself (`{"users":[…]}`, a JSON array of users, or NDJSON of users): passed
 * through as written; the core validates it.
 */
import { type Conversion, converted, type ImportUser, rejected } from '../payload.js';
import { idText, isObject } from './common.js';

export function convertSupertokens(record: unknown): Conversion {
  if (!isObject(record)) return rejected(undefined, 'the user is not a JSON object');
  const externalId = idText(record.externalUserId);
  if (!Array.isArray(record.loginMethods)) return rejected(externalId, 'loginMethods is missing or not an array');
  return converted(record as unknown as ImportUser, externalId);
}
