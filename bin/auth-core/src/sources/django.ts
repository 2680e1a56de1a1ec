/**
 * Django: `python manage.py dumpdata auth.user` (a JSON array; `--format jsonl` writes NDJSON) — one
 * object per user, `{"model": "auth.user", "pk": 1, "fields": {"password": …, "email": …,
 * "date_joined": …, "is_active": …, …}}`. A custom user model with the same fields reads the same.
 */

import { isJsonObject } from '../contract.js';
import { usageError } from '../errors.js';
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
import { djangoHash } from './hashes.js';
import { convertingAlone, hasKey, type SourceDefinition } from './source.js';

/** One record of a Django user dump → the import payload, or the reasons it cannot be imported. */
export const django: SourceDefinition = {
  name: 'django',
  flags: [],
  layout: (detected, exportPath) => {
    if (detected === 'csv')
      throw usageError(`${exportPath} is not JSON: --from django reads manage.py dumpdata (a JSON array or JSONL)`);
    return detected;
  },
  checkFirst: (value) => (hasKey(value, 'fields') ? undefined : 'no "fields": not a record of manage.py dumpdata'),
  open: convertingAlone(convertDjango),
};

export function convertDjango(record: unknown, options: ConvertOptions): Conversion {
  if (!isJsonObject(record)) return rejected(undefined, 'the record is not a JSON object');
  const id = idText(record.pk);
  const fields = record.fields;
  if (!isJsonObject(fields) || !('password' in fields)) {
    return rejected(id, `the record is not a user (model ${text(record.model)?.slice(0, 60) ?? 'missing'})`);
  }
  if (id === undefined) return rejected(undefined, 'pk is missing');
  const email = emailOf(fields.email);
  if (email === undefined) return rejected(id, 'the user has no email address');
  const hash = djangoHash(typeof fields.password === 'string' ? fields.password : '');
  if (!hash.ok) return rejected(id, hash.reason);

  const method = passwordMethod(timeMs(fields.date_joined), email, hash);
  const metadata = textFields(fields, ['username', 'first_name', 'last_name']);
  for (const key of ['is_staff', 'is_superuser'] as const) if (fields[key] === true) metadata[key] = true;
  // Django refuses inactive users at sign-in; the core has no such flag, so the app reads it here.
  if (fields.is_active === false) metadata.is_active = false;
  const user = { externalUserId: id, loginMethods: finishLoginMethods([method], options) };
  return converted(inPayloadOrder(withMetadata(user, metadata)), id);
}
