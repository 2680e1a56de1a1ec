import type { OAuthClient } from './model.js';

/** A client as read, with the version its next write is conditional on. */
export interface StoredClient {
  readonly client: OAuthClient;
  readonly version: number;
}

/** One page of an app's clients, by client id. */
export interface ClientPage {
  readonly clients: readonly OAuthClient[];
  /** Whether clients follow the last one of the page. */
  readonly more: boolean;
}

/**
 * What the OAuth2 client use cases need from storage: the clients of one app
 * (functions/storage/oauth-client-store.ts).
 * Secrets cross this port in clear: the store seals them (the routes that write need
 * `credentials: 'seal'`) and opens them (`'open'`) for the answers that show them.
 */
export interface OAuthClientStore {
  /** The client, consistently read; undefined when the app has none of this id. */
  readOAuthClient(clientId: string): Promise<StoredClient | undefined>;
  /** Stores a new client; false (nothing written) when the app already has one of this id. */
  createOAuthClient(client: OAuthClient): Promise<boolean>;
  /**
   * Replaces a client, on condition that it is still at `version`; false (nothing written) when it
   * changed or went meanwhile. The stored secret is kept when `client.clientSecret` is undefined.
   */
  replaceOAuthClient(client: OAuthClient, version: number): Promise<boolean>;
  /** Clients by id after `after` (exclusive), `limit` at most, only those named `clientName` when given. */
  listOAuthClients(page: { after?: string; limit: number; clientName?: string }): Promise<ClientPage>;
  /** Deletes the client; whether there was one. */
  removeOAuthClient(clientId: string): Promise<boolean>;
}

/** The OAuth2 clients of every app of a table; wiring binds it to the request's app (docs/architecture.md "Stores bound to their app"). */
export interface OAuthClientStores {
  forApp(appId: string): OAuthClientStore;
}
