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

export interface WebauthnStore {
  /** Stores new options; false (nothing written) when options with this id exist. */
  putOptions(appId: string, options: GeneratedOptions): Promise<boolean>;
  /** The options with this id, in any tenant of the app (consistent read). */
  getOptions(appId: string, optionsId: string): Promise<GeneratedOptions | undefined>;
  /** Deletes the options if they exist in this tenant; whether they did. */
  removeOptions(appId: string, tenantId: string, optionsId: string): Promise<boolean>;
  /** The passkey with this id in the app (consistent read). */
  getCredential(appId: string, credentialId: string): Promise<StoredCredential | undefined>;
  /** These passkeys, in the order given (missing ones skipped). */
  getCredentials(appId: string, credentialIds: readonly string[]): Promise<StoredCredential[]>;
  /**
   * Records a verified sign-in: the passkey's new counter, only if its counter is still the one
   * seen, and the options consumed, only if they still exist — both or neither. 'CHANGED' when a
   * condition failed (a concurrent sign-in used the passkey or the options, or it was removed).
   */
  recordSignIn(appId: string, use: SignInUse): Promise<'OK' | 'CHANGED'>;
  /** Deletes these passkeys (batched; not atomic): a user removal, before the user goes. */
  removeCredentials(appId: string, credentialIds: readonly string[]): Promise<void>;
}
