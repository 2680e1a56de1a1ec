/**
 * Passkey ceremonies against the core, for any way of calling it (in process, over HTTP): options
 * from the core, the answer from the software authenticator (webauthn-authenticator.ts), sent
 * back. Shared by the integration tests, the e2e tests and the bench.
 */
import type { Bend, SoftwareAuthenticator } from './webauthn-authenticator.js';

/** The relying party of the tests: a site at app.example.com whose passkeys are for example.com. */
export const RP = { id: 'example.com', name: 'Example', origin: 'https://app.example.com' } as const;

export interface Reply {
  readonly status: number;
  readonly text: string;
  readonly json: any;
}

/** Calls the core: `method`, a path with its prefixes (and query), a JSON body, extra headers. */
export type Caller = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>;

/** `/appid-<app>/<tenant>/recipe/webauthn` */
export const webauthnPath = (appId: string, tenantId = 'public') => `/appid-${appId}/${tenantId}/recipe/webauthn`;

const expectOk = (what: string, reply: Reply) => {
  if (reply.status !== 200 || reply.json?.status !== 'OK') throw new Error(`${what}: ${reply.status} ${reply.text}`);
  return reply.json;
};

export async function registerOptions(
  call: Caller,
  appId: string,
  email: string,
  tenantId = 'public',
  extra: Record<string, unknown> = {},
) {
  return expectOk(
    'register options',
    await call('POST', `${webauthnPath(appId, tenantId)}/options/register`, {
      email,
      relyingPartyId: RP.id,
      relyingPartyName: RP.name,
      origin: RP.origin,
      timeout: 60_000,
      ...extra,
    }),
  );
}

export async function signInOptions(
  call: Caller,
  appId: string,
  tenantId = 'public',
  extra: Record<string, unknown> = {},
) {
  return expectOk(
    'sign-in options',
    await call('POST', `${webauthnPath(appId, tenantId)}/options/signin`, {
      relyingPartyId: RP.id,
      relyingPartyName: RP.name,
      origin: RP.origin,
      timeout: 60_000,
      ...extra,
    }),
  );
}

/** Registration options for `email`, a passkey made for them, and the sign-up answer. */
export async function passkeySignUp(
  call: Caller,
  authenticator: SoftwareAuthenticator,
  appId: string,
  email: string,
  tenantId = 'public',
  bend: Bend = {},
) {
  const options = await registerOptions(call, appId, email, tenantId);
  const credential = authenticator.create(options, RP.origin, bend);
  const reply = await call('POST', `${webauthnPath(appId, tenantId)}/signup`, {
    webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId,
    credential,
  });
  return { options, credential, reply };
}

/** Sign-in options, an assertion of passkey `credentialId` for them, and the sign-in answer. */
export async function passkeySignIn(
  call: Caller,
  authenticator: SoftwareAuthenticator,
  appId: string,
  credentialId: string,
  options: { tenantId?: string; bend?: Bend; cdiVersion?: string } = {},
) {
  const tenantId = options.tenantId ?? 'public';
  const signIn = await signInOptions(call, appId, tenantId);
  const credential = authenticator.get(credentialId, signIn, RP.origin, options.bend);
  const body = { webauthnGeneratedOptionsId: signIn.webauthnGeneratedOptionsId, credential };
  const headers = options.cdiVersion ? { 'cdi-version': options.cdiVersion } : undefined;
  const reply = await call('POST', `${webauthnPath(appId, tenantId)}/signin`, body, headers);
  return { options: signIn, body, reply };
}
