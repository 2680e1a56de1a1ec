/**
 * The password-hash upgrade after a sign-in: one conditional UpdateItem of the USER item.
 *
 * An emailpassword login method's hash is stored once, in its user's USER item (`loginMethods[i]
 * .passwordHash`; a linked method lives in its primary user's item). The account-info, link,
 * membership and mapping items carry ids only, so one item update replaces every copy; the
 * item's index entries (GSI1, GSI2 project every attribute) follow it.
 */
import type { UserRecord } from '#functions/domain/users/model.js';
import { type Table, updateItem } from '../kit/index.js';
import { userEntity } from './items.js';

/**
 * Sets the hash of `user`'s login method `recipeUserId` to `replacement` if the stored item still
 * has, at the same place, that login method with the hash `user` was read with; the version goes
 * up by one, so a rewrite of the user planned from the older read fails its version guard and
 * reads again. False (nothing written) when the condition did not hold: the hash was changed, the
 * method moved or the user is gone.
 */
export async function replacePasswordHash(
  table: Table,
  appId: string,
  user: UserRecord,
  recipeUserId: string,
  replacement: string,
): Promise<boolean> {
  const index = user.loginMethods.findIndex((lm) => lm.recipeUserId === recipeUserId);
  const expected = index < 0 ? undefined : user.loginMethods[index]?.passwordHash;
  if (expected === undefined) return false;
  const method = `#methods[${index}]`;
  const result = await updateItem(
    table,
    userEntity.key({ appId, userId: user.userId }),
    {
      UpdateExpression: `SET ${method}.#hash = :replacement, #version = if_not_exists(#version, :zero) + :one`,
      ExpressionAttributeNames: {
        '#methods': 'loginMethods',
        '#hash': 'passwordHash',
        '#recipeUserId': 'recipeUserId',
        '#version': 'version',
      },
      ExpressionAttributeValues: { ':replacement': replacement, ':zero': 0, ':one': 1 },
    },
    {
      expression: `${method}.#recipeUserId = :recipeUserId AND ${method}.#hash = :expected`,
      values: { ':recipeUserId': recipeUserId, ':expected': expected },
    },
  );
  return result.ok;
}
