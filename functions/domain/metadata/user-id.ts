import { BadRequestError } from '#functions/shared/errors.js';
import { ID_LIMITS } from '#functions/shared/id-limits.js';

/**
 * Longest user id that metadata, roles and TOTP devices are stored for: the reference core's
 * storage column (VARCHAR(128)); it also keeps every key far inside DynamoDB's key-size limits.
 */
const MAX_USER_ID_LENGTH = ID_LIMITS.userId;

/** Whether anything can be stored for this id (reads of longer ids simply find nothing). */
export function fitsUserId(userId: string): boolean {
  return userId.length <= MAX_USER_ID_LENGTH;
}

/** Writes refuse longer ids with a 400 (the reference fails with a 500). */
export function checkUserIdLength(userId: string): void {
  if (!fitsUserId(userId)) {
    throw new BadRequestError(`Field name 'userId' is too long. Max length is ${MAX_USER_ID_LENGTH}.`);
  }
}
