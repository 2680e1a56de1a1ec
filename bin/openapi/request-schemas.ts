/**
 * Each route's request schemas by route id (functions/routes.ts): the same objects its handler
 * declares (`request: { body, query }`, functions/http/<id>/handler.ts), gathered for the API
 * description (./build.ts generates the request bodies and query parameters from them).
 * Only schema modules are imported here — no store, no AWS client — so the build stays cheap;
 * test/unit/request-schemas.test.ts holds every handler to its entry.
 */
import * as metadata from '#functions/domain/metadata/input.js';
import * as roles from '#functions/domain/roles/input.js';
import type { RequestSchemas } from '#functions/shared/request-schema.js';

export const REQUEST_SCHEMAS: Readonly<Record<string, RequestSchemas>> = {
  'role-put': { body: roles.createRoleRequest },
  'role-remove': { body: roles.removeRoleRequest },
  'role-permissions': { query: roles.roleQuery },
  'role-users': { query: roles.roleQuery },
  'user-role-put': { body: roles.userRoleRequest },
  'user-role-remove': { body: roles.userRoleRequest },
  'user-roles-get': { query: roles.userIdQuery },
  'role-permissions-remove': { body: roles.removePermissionsRequest },
  'permission-roles': { query: roles.permissionQuery },
  'metadata-get': { query: metadata.metadataQuery },
  'metadata-put': { body: metadata.updateMetadataRequest },
  'metadata-remove': { body: metadata.removeMetadataRequest },
};
