/**
 * The requests of the role routes, as schemas (functions/shared/request-schema.ts): what the
 * handlers parse and the API description shows. Role names are trimmed; the sentences for an empty
 * or too-long name are the reference's. Fields are read in the reference's order.
 */
import * as z from 'zod/mini';
import { BadRequestError, invalidFieldMessage } from '#functions/shared/errors.js';
import { jsonString, optionalOrNull, queryString, rule } from '#functions/shared/request-schema.js';
import { checkUserIdLength } from '../metadata/user-id.js';

/** Longest role or permission name, as the reference's storage column (VARCHAR(255)). */
const MAX_ROLE_LENGTH = 255;
/** Keeps `ROLE#<tenant>#<role>` inside DynamoDB's 1,024-byte sort-key limit for any characters. */
const MAX_ROLE_BYTES = 900;

function tooLong(value: string): boolean {
  return value.length > MAX_ROLE_LENGTH || Buffer.byteLength(value, 'utf8') > MAX_ROLE_BYTES;
}

/** Trims a role name; empty → the core's 400. Too long → 400 (the reference fails with a 500). */
export function normaliseRole(raw: string): string {
  const role = raw.trim();
  if (role.length === 0) throw new BadRequestError("Field name 'role' cannot be an empty String");
  if (tooLong(role)) throw new BadRequestError(`Field name 'role' is too long. Max length is ${MAX_ROLE_LENGTH}.`);
  return role;
}

const role = () => rule(jsonString(), normaliseRole);

/** A list of permissions, each trimmed and non-empty (`limitLength`: and at most MAX_ROLE_LENGTH long). */
const permissions = (limitLength: boolean) =>
  z.array(
    rule(z.string({ error: invalidFieldMessage('permissions') }), (value) => {
      const permission = value.trim();
      if (permission.length === 0) throw new BadRequestError("Field name 'permissions' cannot contain an empty string");
      if (limitLength && tooLong(permission)) {
        throw new BadRequestError(
          `Field name 'permissions' contains a permission that is too long. Max length is ${MAX_ROLE_LENGTH}.`,
        );
      }
      return permission;
    }),
    { error: invalidFieldMessage('permissions') },
  );

/** `PUT /recipe/role` body: `role` (trimmed), optional `permissions` (null = absent; each trimmed, non-empty). */
export const createRoleRequest = rule(
  z.object({ role: role(), permissions: optionalOrNull(permissions(true)) }),
  (body) => ({ role: body.role, permissions: body.permissions ?? [] }),
);
export type CreateRoleInput = z.output<typeof createRoleRequest>;

/** `POST /recipe/role/remove` body: `role`. */
export const removeRoleRequest = z.object({ role: role() });

/** `GET /recipe/role/permissions?role=` and `GET /<t>/recipe/role/users?role=` query. */
export const roleQuery = z.object({ role: rule(queryString(), normaliseRole) });

/** `PUT /<t>/recipe/user/role` and `POST /<t>/recipe/user/role/remove` body: `userId` (as given), `role` (trimmed). */
export const userRoleRequest = rule(z.object({ userId: jsonString(), role: role() }), (body) => {
  checkUserIdLength(body.userId);
  return body;
});
export type UserRoleInput = z.output<typeof userRoleRequest>;

/** `GET /<t>/recipe/user/roles?userId=` query (the id is used as given, not trimmed). */
export const userIdQuery = z.object({ userId: queryString() });

/**
 * `POST /recipe/role/permissions/remove` body: `role` (trimmed), optional `permissions` (absent
 * or null: all of them; each trimmed and non-empty).
 */
export const removePermissionsRequest = rule(
  z.object({ role: role(), permissions: optionalOrNull(permissions(false)) }),
  (body): { role: string; permissions?: readonly string[] } =>
    body.permissions == null ? { role: body.role } : { role: body.role, permissions: body.permissions },
);

/** `GET /recipe/permission/roles?permission=` query: the permission, trimmed and non-empty. */
export const permissionQuery = z.object({
  permission: rule(queryString(), (value) => {
    const permission = value.trim();
    if (permission.length === 0) throw new BadRequestError("Field name 'permission' cannot be an empty String");
    return permission;
  }),
});
