/**
 * WordPress: the rows of `wp_users` as CSV with a header (`ID`, `user_login`, `user_pass`,
 * `user_email`, `user_registered`, `display_name`, …), e.g. `wp user list --fields=… --format=csv`
 * or a database tool's CSV export. `user_registered` is MySQL's `YYYY-MM-DD HH:MM:SS`, in UTC.
 */
import { type Conversion, converted, type ImportUser, rejected } from '../payload.js';
import {
  type ConvertOptions,
  finishLoginMethods,
  idText,
  isObject,
  methodAt,
  normaliseEmail,
  text,
  timeMs,
} from './common.js';
import { wordpressHash } from './hashes.js';

/** One `wp_users` row → the import payload, or the reasons it cannot be imported. */
export function convertWordpress(record: unknown, options: ConvertOptions): Conversion {
  if (!isObject(record)) return rejected(undefined, 'the row is not an object');
  const id = idText(record.ID);
  if (id === undefined) return rejected(undefined, 'ID is missing');
  const email = normaliseEmail(record.user_email);
  if (email === undefined) return rejected(id, 'the user has no email address');
  const hash = wordpressHash(text(record.user_pass) ?? '');
  if (!hash.ok) return rejected(id, hash.reason);
  const method = {
    ...methodAt(timeMs(record.user_registered)),
    email,
    passwordHash: hash.passwordHash,
    hashingAlgorithm: hash.hashingAlgorithm,
  };
  const metadata: Record<string, unknown> = {};
  for (const key of ['user_login', 'display_name', 'user_url'] as const) {
    const value = text(record[key]);
    if (value !== undefined) metadata[key] = value;
  }
  const user: ImportUser = {
    externalUserId: id,
    ...(Object.keys(metadata).length > 0 ? { userMetadata: metadata } : {}),
    loginMethods: finishLoginMethods([method], options),
  };
  return converted(user, id);
}
