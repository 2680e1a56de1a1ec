/**
 * Each route's request schemas by route id (functions/routes.ts): the same objects its handler
 * declares (`request: { body, query }`, functions/http/<id>/handler.ts), gathered for the API
 * description (./build.ts generates the request bodies and query parameters from them).
 * Only schema modules are imported here — no store, no AWS client — so the build stays cheap;
 * test/unit/request-schemas.test.ts holds every handler to its entry.
 */
import * as accountlinking from '#functions/domain/accountlinking/input.js';
import * as accounts from '#functions/domain/accounts/inputs.js';
import * as dashboard from '#functions/domain/dashboard/input.js';
import * as metadata from '#functions/domain/metadata/input.js';
import * as oauthClients from '#functions/domain/oauth-clients/input.js';
import * as roles from '#functions/domain/roles/input.js';
import * as totp from '#functions/domain/totp/requests.js';
import * as users from '#functions/domain/users/input.js';
import * as webauthn from '#functions/domain/webauthn/requests.js';
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
  signin: { body: users.signInRequest },
  signup: { body: users.signUpRequest },
  'user-get': { query: users.userGetQuery },
  'user-remove': { body: users.userRemoveRequest },
  'userid-external-info-put': { body: users.updateMappingInfoRequest },
  'userid-map-create': { body: users.createMappingRequest },
  'userid-map-get': { query: users.mappingQuery },
  'userid-map-remove': { body: users.removeMappingRequest },
  'users-by-accountinfo': { query: users.usersByAccountInfoQuery },
  'users-count': { query: users.usersCountQuery },
  'users-list': { query: users.usersListQuery },
  'password-migration-pending': { query: users.pendingPasswordsQuery },
  'password-reset-token': { body: accounts.resetTokenRequest },
  'password-reset-token-consume': { body: accounts.tokenRequest },
  'email-verify': { body: accounts.verifyEmailRequest },
  'email-verify-get': { query: accounts.isVerifiedQuery },
  'email-verify-remove': { body: accounts.userEmailRequest },
  'email-verify-token': { body: accounts.userEmailRequest },
  'email-verify-token-remove': { body: accounts.userEmailRequest },
  'totp-device-create': { body: totp.createDeviceRequest },
  'totp-device-verify': { body: totp.verifyDeviceRequest },
  'totp-verify': { body: totp.verifyCodeRequest },
  'totp-device-remove': { body: totp.removeDeviceRequest },
  'totp-device-rename': { body: totp.renameDeviceRequest },
  'totp-devices-list': { query: totp.listDevicesQuery },
  'accountlinking-link': { body: accountlinking.linkRequest },
  'accountlinking-link-check': { query: accountlinking.linkQuery },
  'accountlinking-primary': { body: accountlinking.recipeUserRequest },
  'accountlinking-primary-check': { query: accountlinking.recipeUserQuery },
  'accountlinking-unlink': { body: accountlinking.recipeUserRequest },
  'webauthn-credential-register': { body: webauthn.registerCredentialRequest },
  'webauthn-options-register': { body: webauthn.registerOptionsRequest },
  'webauthn-options-signin': { body: webauthn.signInOptionsRequest },
  'webauthn-recover-token-consume': { body: webauthn.tokenRequest },
  'webauthn-recover-token': { body: webauthn.recoverTokenRequest },
  'webauthn-signin': { body: webauthn.credentialRequest },
  'webauthn-signup': { body: webauthn.credentialRequest },
  'webauthn-user-email-put': { body: webauthn.emailUpdateRequest },
  'webauthn-credential-get': { query: webauthn.credentialQuery },
  'webauthn-credential-list': { query: webauthn.recipeUserIdQuery },
  'webauthn-credential-remove': { query: webauthn.credentialQuery },
  'webauthn-options-get': { query: webauthn.optionsIdQuery },
  'webauthn-options-remove': { query: webauthn.optionsIdQuery },
  'webauthn-recover-get': { query: webauthn.tokenQuery },
  'oauth-client-get': { query: oauthClients.clientIdQuery },
  'oauth-client-remove': { body: oauthClients.removeClientRequest },
  'dashboard-signin': { body: dashboard.signInRequest },
  'dashboard-session-verify': { body: dashboard.sessionIdRequest },
  'dashboard-session-remove': { query: dashboard.sessionIdQuery },
  'dashboard-user-sessions': { query: dashboard.userIdQuery },
  'dashboard-user-remove': { query: dashboard.deleteUserQuery },
};
