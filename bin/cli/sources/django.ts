/**
 * Django: `python manage.py dumpdata auth.user` (a JSON array; `--format jsonl` writes NDJSON) — one
 * object per user, `{"model": "auth.user", "pk": 1, "fields": {"password": …, "email": …,
 * "date_joined": …, "is_active": …, …}}`. A custom user model with the same fields reads the same.
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
import { djangoHash } from './hashes.js';

/** One record of a Django user dump → the import payload, or the reasons it cannot be imported. */
export function convertDjango(record: unknown, options: ConvertOptions): Conversion {
  if (!isObject(record)) return rejected(undefined, 'the record is not a JSON object');
  const id = idText(record.pk);
  const fields = record.fields;
  if (!isObject(fields) || !('password' in fields)) {
    return rejected(id, `the record is not a user (model ${text(record.model)?.slice(0, 60) ?? 'missing'})`);
  }
  if (id === undefined) return rejected(undefined, 'pk is missing');
  const email = normaliseEmail(fields.email);
  if (email === undefined) return rejected(id, 'the user has no email address');
  const hash = djangoHash(typeof fields.password === 'string' ? fields.password : '');
  if (!hash.ok) return rejected(id, hash.reason);

  const method = {
    ...methodAt(timeMs(fields.date_joined)),
    email,
    passwordHash: hash.passwordHash,
    hashingAlgorithm: hash.hashingAlgorithm,
  };
  const metadata: Record<string, unknown> = {};
  for (const key of ['username', 'first_name', 'last_name'] as const) {
    const value = text(fields[key]);
    if (value !== undefined) metadata[key] = value;
  }
  for (const key of ['is_staff', 'is_superuser'] as const) if (fields[key] === true) metadata[key] = true;
  // Django refuses inactive users at sign-in; the core has no such flag, so the app reads it here.
  if (fields.is_active === false) metadata.is_active = false;
  const user: ImportUser = {
    externalUserId: id,
    ...(Object.keys(metadata).length > 0 ? { userMetadata: metadata } : {}),
    loginMethods: finishLoginMethods([method], options),
  };
  return converted(user, id);
}
