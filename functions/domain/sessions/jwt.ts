/**
 * The JWT recipe and the JWKS (docs/sessions.md "Routes", "Signing keys"): the app's public keys
 * as `/.well-known/jwks.json` and `GET /recipe/jwt/jwks` show them, and `POST /recipe/jwt`.
 */
import { signJwt } from './access-token.js';
import type { SessionDeps } from './deps.js';
import { overlapMs } from './key-ring.js';
import type { JsonObject } from './model.js';

const jwkOf = (kid: string, key: { n: string; e: string }) => ({
  kty: 'RSA',
  kid,
  n: key.n,
  e: key.e,
  alg: 'RS256',
  use: 'sig',
});

/** The app's public keys as a JWKS, and how long a verifier may cache it (the reference's `Cache-Control`). */
export async function jwks(deps: SessionDeps, appId: string) {
  const keys = await deps.keys.jwksKeys(appId, deps.settings);
  const jwkList = keys.flatMap((k) => (k.publicJwk ? [jwkOf(k.kid, k.publicJwk)] : []));
  const latest = keys.find((k) => k.kind === 'dynamic');
  const left = latest
    ? Math.floor(
        (latest.createdAt + deps.settings.dynamicKeyUpdateIntervalMs - overlapMs(deps.settings) - deps.now()) / 1000,
      )
    : 1;
  return { keys: jwkList, cacheSeconds: Math.max(left, 1) };
}

export interface CreateJwtInput {
  readonly algorithm: string;
  readonly jwksDomain: string;
  readonly payload: JsonObject;
  /** Seconds (> 0). */
  readonly validity: number;
  /** Absent = the static key (CDI ≥ 2.21 default). */
  readonly useStaticSigningKey: boolean | undefined;
}

/** `POST /recipe/jwt`: a JWT signed with the app's static key (default) or its current dynamic key. */
export async function createJwt(deps: SessionDeps, appId: string, input: CreateJwtInput) {
  if (input.algorithm.toUpperCase() !== 'RS256') return { status: 'UNSUPPORTED_ALGORITHM_ERROR' as const };
  const useStatic = input.useStaticSigningKey !== false;
  const key = await deps.keys.signingKey(appId, deps.settings, useStatic);
  const now = deps.now();
  const payload: JsonObject = {
    ...input.payload,
    iss: Object.hasOwn(input.payload, 'iss') ? input.payload.iss : input.jwksDomain,
    iat: Math.floor(now / 1000),
    exp: Math.floor((now + input.validity * 1000) / 1000),
  };
  const jwt = await signJwt(payload, { alg: 'RS256', typ: 'JWT', kid: key.kid }, key.privateKey);
  return { status: 'OK' as const, jwt };
}
