/**
 * Key builders for an app's OAuth2 clients (docs/oauth2-clients.md "Storage"):
 * `APP#<a>#OAUTHCLIENT` / `CLIENT#<clientId>`. One partition per app, apart from the app's own
 * (which every request reads its tenants from), so listing the clients is one Query in client-id
 * order and removing the app empties one partition.
 */
import { appPartition } from './apps.js';

export const oauthClientsPartition = (appId: string) => `${appPartition(appId)}#OAUTHCLIENT`;
export const oauthClientSortKey = (clientId: string) => `CLIENT#${clientId}`;
