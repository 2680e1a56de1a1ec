/**
 * WordPress: the rows of `wp_users` as CSV with a header (`ID`, `user_login`, `user_pass`,
 * `user_email`, `user_registered`, `display_name`, …), e.g. `wp user list --fields=… --format=csv`
 * or a database tool's CSV export. `user_registered` is MySQL's `YYYY-MM-DD HH:MM:SS`, in UTC.
 */

import { isJsonObject } from '../contract.js';
import {
  type ConvertOptions,
  emailOf,
  finishLoginMethods,
  idText,
  inPayloadOrder,
  passwordMethod,
  text,
  textFields,
  timeMs,
  withMetadata,
} from './common.js';
import { type Conversion, converted, rejected } from './conversion.js';
import { wordpressHash } from './hashes.js';
import { convertingAlone, hasKey, type SourceDefinition } from './source.js';

/** One `wp_users` row → the import payload, or the reasons it cannot be imported. */
export const wordpress: SourceDefinition = {
  name: 'wordpress',
  flags: [],
  layout: () => 'csv',
  checkFirst: (value) =>
    hasKey(value, 'ID') && hasKey(value, 'user_pass')
      ? undefined
      : 'no "ID" and "user_pass" columns: not rows of wp_users with a header',
  open: convertingAlone(convertWordpress),
};

export function convertWordpress(record: unknown, options: ConvertOptions): Conversion {
  if (!isJsonObject(record)) return rejected(undefined, 'the row is not an object');
  const id = idText(record.ID);
  if (id === undefined) return rejected(undefined, 'ID is missing');
  const email = emailOf(record.user_email);
  if (email === undefined) return rejected(id, 'the user has no email address');
  const hash = wordpressHash(text(record.user_pass) ?? '');
  if (!hash.ok) return rejected(id, hash.reason);
  const method = passwordMethod(timeMs(record.user_registered), email, hash);
  const metadata = textFields(record, ['user_login', 'display_name', 'user_url']);
  const user = { externalUserId: id, loginMethods: finishLoginMethods([method], options) };
  return converted(inPayloadOrder(withMetadata(user, metadata)), id);
}
