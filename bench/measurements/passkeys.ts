/**
 * Measurement 13: signing in with a passkey (docs/passkeys.md). Over HTTP against the runtime,
 * sequentially, per request: a passkey sign-in (`POST /recipe/webauthn/signin` on CDI 5.4, as
 * supertokens-node 24 sends it; its options are fetched and the assertion made by the software
 * authenticator before the clock starts), a password sign-in of an email/password user at the
 * runtime's bcrypt cost, and `/hello` as the bare request of the same run. Ratios: each sign-in's
 * median ÷ `/hello`'s, and passkey ÷ password. In this process, through the real handlers with the
 * recorder on: the DynamoDB calls of sign-in options and of a passkey sign-in on CDI 5.4 and 5.5
 * (the latter consuming its options), priced with AWS's rules.
 */
import { ROUTES } from '#functions/routes.js';
import { createRouter, dispatch } from '../../bin/local/dispatch.js';
import { SoftwareAuthenticator } from '../../test/helpers/webauthn-authenticator.js';
import { type Caller, passkeySignUp, RP, signInOptions, webauthnPath } from '../../test/helpers/webauthn-flows.js';
import type { InProcess, RecordedCall } from '../lib/calls.js';
import { call, callOk, type Runtime } from '../lib/runtime.js';
import { percentile, timed } from '../lib/stats.js';
import { shortId } from '../lib/users.js';

const PASSWORD = 'correct horse battery staple';
const SDK_CDI = '5.4';
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** The core over HTTP, as the flows of test/helpers/webauthn-flows.ts call it. */
const over =
  (runtime: Runtime): Caller =>
  async (method, path, body, headers) => {
    const response = await runtime.process.fetch(path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json };
  };

export interface PasskeyTarget {
  readonly appId: string;
  readonly authenticator: SoftwareAuthenticator;
  readonly credentialId: string;
  readonly email: string;
}

/** An app with one passkey user and one email/password user (bcrypt at the runtime's cost). */
export async function preparePasskeys(runtime: Runtime): Promise<PasskeyTarget> {
  const appId = `passkeys-${shortId()}`;
  await callOk(runtime, 'PUT', '/recipe/multitenancy/app/v2', { appId });
  const authenticator = new SoftwareAuthenticator();
  const { reply, credential } = await passkeySignUp(over(runtime), authenticator, appId, `pk-${shortId()}@example.com`);
  if (reply.json?.status !== 'OK') throw new Error(`passkey sign-up: ${reply.text}`);
  const email = `pw-${shortId()}@example.com`;
  await callOk(runtime, 'POST', `/appid-${appId}/public/recipe/signup`, { email, password: PASSWORD });
  return { appId, authenticator, credentialId: credential.id, email };
}

export async function passkeysRun(runtime: Runtime, target: PasskeyTarget, requests: number) {
  const caller = over(runtime);
  const passkey: number[] = [];
  const password: number[] = [];
  const hello: number[] = [];
  for (let i = 0; i < requests; i++) {
    const options = await signInOptions(caller, target.appId);
    const credential = target.authenticator.get(target.credentialId, options, RP.origin);
    const body = { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential };
    const signedIn = await timed(passkey, () =>
      caller('POST', `${webauthnPath(target.appId)}/signin`, body, { 'cdi-version': SDK_CDI }),
    );
    if (signedIn.json?.status !== 'OK') throw new Error(`passkey sign-in: ${signedIn.text}`);
    await timed(password, () =>
      callOk(runtime, 'POST', `/appid-${target.appId}/public/recipe/signin`, {
        email: target.email,
        password: PASSWORD,
      }),
    );
    await timed(hello, async () => {
      const h = await call(runtime, 'GET', '/hello');
      if (h.status !== 200) throw new Error('hello failed');
    });
  }
  const [pk, pw, bare] = [passkey, password, hello].map((xs) => percentile(xs, 50)) as [number, number, number];
  return {
    passkeyP50: pk,
    passkeyP99: percentile(passkey, 99),
    passwordP50: pw,
    passwordP99: percentile(password, 99),
    helloP50: bare,
    passkeyRatioP50: pk / bare,
    passwordRatioP50: pw / bare,
    passkeyToPasswordP50: pk / pw,
  };
}

function units(calls: readonly RecordedCall[]) {
  const writes = calls.filter((c) => c.kind === 'write');
  const tableWrite = sum(writes.map((c) => c.computed?.tableWriteUnits ?? 0));
  const indexWrite = sum(writes.flatMap((c) => Object.values(c.computed?.indexWriteUnits ?? {})));
  return {
    calls: calls.map((c) => c.command),
    tableWriteUnits: tableWrite,
    indexWriteUnits: indexWrite,
    writeUnits: tableWrite + indexWrite,
    readUnits: sum(calls.map((c) => c.computed?.readUnits ?? 0)),
  };
}

/** The DynamoDB calls of sign-in options and of a passkey sign-in (CDI 5.4 and 5.5), in this process. */
export async function recordPasskeyUnits(runtime: Runtime, inProcess: InProcess) {
  const target = await preparePasskeys(runtime);
  const router = createRouter(ROUTES);
  const caller: Caller = async (method, path, body, headers) => {
    const reply = await dispatch(router, {
      method,
      url: path,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
    });
    return { status: reply.statusCode, text: reply.body, json: JSON.parse(reply.body) };
  };
  const step = async <T>(phase: string, run: () => Promise<T>) => {
    inProcess.phase = phase;
    const result = await run();
    return { result, calls: inProcess.calls.filter((c) => c.phase === phase) };
  };
  const previous = { images: inProcess.images, phase: inProcess.phase };
  inProcess.images = true;
  try {
    const signIn = async (cdiVersion: string) => {
      const options = await step(`passkey-options-${cdiVersion}`, () => signInOptions(caller, target.appId));
      const credential = target.authenticator.get(target.credentialId, options.result, RP.origin);
      const body = { webauthnGeneratedOptionsId: options.result.webauthnGeneratedOptionsId, credential };
      const signedIn = await step(`passkey-signin-${cdiVersion}`, () =>
        caller('POST', `${webauthnPath(target.appId)}/signin`, body, { 'cdi-version': cdiVersion }),
      );
      if (signedIn.result.json?.status !== 'OK') throw new Error(`passkey sign-in: ${signedIn.result.text}`);
      return { options: units(options.calls), signIn: units(signedIn.calls) };
    };
    const sdk = await signIn(SDK_CDI);
    const latest = await signIn('5.5');
    return { signInOptions: sdk.options, signInCdi54: sdk.signIn, signInCdi55: latest.signIn };
  } finally {
    inProcess.images = previous.images;
    inProcess.phase = previous.phase;
  }
}
