/**
 * Stands in for `@aws-sdk/credential-provider-node` inside the function bundles (the bundling
 * options of ServiceFunction, lib/constructs/service-function.ts), with the same exports.
 *
 * The SDK's default chain tries the environment first, then SSO, shared ini files, credential
 * processes, web identity tokens and the container/instance metadata services; the later links
 * are never reached on Lambda, which always puts the execution role's credentials in
 * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, yet they (and the STS, SSO and
 * sign-in clients they load) are about 130 KB of every bundle and of every cold start's parsing.
 * This keeps the first link only: the SDK's own environment provider. The sources (tests, the
 * local runtime from TypeScript) keep the SDK's full chain; the local clients pass explicit
 * credentials anyway (functions/shared/clients.ts).
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

type Init = Parameters<typeof fromEnv>[0];
type Provider = ReturnType<typeof fromEnv>;
type Credentials = Awaited<ReturnType<Provider>>;

/** The default provider, on Lambda: the credentials Lambda puts in the environment. */
export const defaultProvider = (init: Init = {}): Provider => fromEnv(init);

/** As the SDK's: credentials with an expiration are refreshed. */
export const credentialsWillNeedRefresh = (credentials: Credentials | undefined): boolean =>
  credentials?.expiration !== undefined;

/** As the SDK's: credentials within 5 minutes of their expiration count as expired. */
export const credentialsTreatedAsExpired = (credentials: Credentials | undefined): boolean =>
  credentials?.expiration !== undefined && credentials.expiration.getTime() - Date.now() < 300_000;
