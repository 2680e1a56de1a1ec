/**
 * What the WebAuthn use cases need from storage (docs/passkeys.md). Registering or removing a
 * passkey changes the login method that lists it too, so those writes go through the users store
 * as companion writes (`WebauthnWrites`, functions/domain/users/companions.ts, with the passkey's
 * data), in the same transaction as the user.
 */
import type { StoredCredential } from '../users/companions.js';
import type { GeneratedOptions } from './model.js';

/** A sign-in's effect on the passkey it used, committed only if nothing else used it meanwhile. */
interface SignInUse {
  readonly credentialId: string;
  /** The counter the verification was decided on. */
  readonly seenCounter: number;
  readonly newCounter: number;
  readonly at: number;
  /** Options consumed with it (CDI ≥ 5.5: sign-in options are single-use). */
  readonly consumeOptions?: { readonly id: string };
}

/** The options and passkeys of one app. */
export interface WebauthnStore {
  /** Stores new options; false (nothing written) when options with this id exist. */
  storeWebauthnOptions(options: GeneratedOptions): Promise<boolean>;
  /** The options with this id, in any tenant of the app (consistent read). */
  readWebauthnOptions(optionsId: string): Promise<GeneratedOptions | undefined>;
  /** Deletes the options if they exist in this tenant; whether they did. */
  removeWebauthnOptions(tenantId: string, optionsId: string): Promise<boolean>;
  /** The passkey with this id in the app (consistent read). */
  readPasskey(credentialId: string): Promise<StoredCredential | undefined>;
  /** These passkeys, in the order given (missing ones skipped). */
  readPasskeys(credentialIds: readonly string[]): Promise<StoredCredential[]>;
  /**
   * Records a verified sign-in: the passkey's new counter, only if its counter is still the one
   * seen, and the options consumed, only if they still exist — both or neither. 'CHANGED' when a
   * condition failed (a concurrent sign-in used the passkey or the options, or it was removed).
   */
  recordPasskeySignIn(use: SignInUse): Promise<'OK' | 'CHANGED'>;
  /** Deletes these passkeys (batched; not atomic): a user removal, before the user goes. */
  removePasskeys(credentialIds: readonly string[]): Promise<void>;
}

/** The options and passkeys of every app of a table; wiring binds it to the request's app (docs/architecture.md "Stores bound to their app"). */
export interface WebauthnStores {
  forApp(appId: string): WebauthnStore;
}
