// Client authentication by a signed JWT (RFC 7523 §2.2 and §3, OIDC Core §9): private_key_jwt, signed
// with one of the client's registered keys, and client_secret_jwt, an HMAC under its secret. The JWT
// names the client as iss and sub, this server as aud (one string, see assertionAudiences), expires
// within LIMITS.jwtLifetimeSeconds, and carries a jti that is accepted once.
import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { sha256, unseal, type Sealed } from '../../common/crypto';
import { throttled } from '../../db/sweeper';
import { ASSERTION_ALGORITHMS, ENDPOINTS, FAPI_ALGORITHMS, LIMITS, type AssertionMethod } from '../protocol';
import { isFapi } from './fapi.service';
import * as assertionsDao from './client-assertions.dao';
import { verificationKey } from './client-keys.service';
import type { ClientDocument } from './clients.model';
import type { ClientKeySets } from './client-keys.service';

/** What checking a client's JWT needs to know of this server. */
export interface JwtContext {
  issuer: string;
  /** The URL of the endpoint being called, which the JWT may name instead. */
  endpoint?: string;
  /** Outside production: a jwks_uri on a loopback or private address may be fetched. */
  allowPrivate: boolean;
  /** What client secrets for client_secret_jwt are sealed under (SIGNING_KEYS_SECRET). */
  sealingSecret: string;
  /** The app's fetched jwks_uri sets (clients.store.ts). */
  keySets: ClientKeySets;
}

/** The HKDF purpose client secrets are sealed under, for client_secret_jwt. */
export const CLIENT_SECRET_PURPOSE = 'oauth-client-secrets';

const sweepUsed = throttled(60_000, assertionsDao.deleteExpired);

/** The key that checks a JWT from the client with this header: its registered public key, or its secret. */
export async function clientKey(client: ClientDocument, header: jwt.JwtHeader, context: JwtContext): Promise<KeyObject | string | null> {
  if (header.alg?.startsWith('HS')) {
    const sealed: Sealed | undefined = client.secretSealed;
    return sealed ? unseal(sealed, context.sealingSecret, CLIENT_SECRET_PURPOSE) : null;
  }
  return verificationKey(client, header, context.keySets, context.allowPrivate);
}

/**
 * The audiences a client assertion may name, as one string and never an array (an array is how an
 * assertion meant for one server is replayed at another): the issuer, as draft-ietf-oauth-rfc7523bis
 * asks; the token endpoint URL, which OIDC Core §9 recommends and the OpenID Foundation's OIDC plans
 * send; and the URL of the endpoint called, which authlib sends at revocation and introspection
 * (docs/decisions.md).
 */
export const assertionAudiences = (context: Pick<JwtContext, 'issuer' | 'endpoint'>): [string, ...string[]] => [
  context.issuer,
  `${context.issuer}${ENDPOINTS.token}`,
  ...(context.endpoint ? [context.endpoint] : []),
];

/** Checks a client assertion for the client's registered method; true only the first time a good one is seen. */
export async function verifyAssertion(
  client: ClientDocument,
  method: AssertionMethod,
  assertion: string,
  context: JwtContext,
): Promise<boolean> {
  const decoded = jwt.decode(assertion, { complete: true });
  if (!decoded || typeof decoded.payload !== 'object') return false;
  // FAPI 2.0 §5.4 and §5.3.2.1-8: a FAPI client signs with PS256, ES256 or EdDSA, for the issuer alone.
  const fapi = isFapi(client);
  const algorithms: readonly string[] = client.metadata?.token_endpoint_auth_signing_alg
    ? [client.metadata.token_endpoint_auth_signing_alg]
    : ASSERTION_ALGORITHMS[method].filter((alg) => !fapi || (FAPI_ALGORITHMS as readonly string[]).includes(alg));
  if (!algorithms.includes(decoded.header.alg)) return false;
  const key = await clientKey(client, decoded.header, context);
  if (!key) return false;
  let payload: jwt.JwtPayload;
  try {
    payload = jwt.verify(assertion, key, {
      algorithms: [decoded.header.alg as jwt.Algorithm],
      issuer: client._id,
      subject: client._id,
      audience: fapi ? context.issuer : assertionAudiences(context),
      clockTolerance: LIMITS.jwtClockToleranceSeconds,
    }) as jwt.JwtPayload;
  } catch {
    return false;
  }
  if (typeof payload.aud !== 'string') return false;
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.exp !== 'number' || payload.exp > now + LIMITS.jwtLifetimeSeconds) return false;
  if (typeof payload.iat === 'number' && payload.iat > now + LIMITS.jwtClockToleranceSeconds) return false;
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 256) return false;
  sweepUsed(new Date());
  return assertionsDao.markUsed(sha256(`${client._id} ${payload.jti}`), new Date((payload.exp + LIMITS.jwtClockToleranceSeconds) * 1000));
}

/**
 * Records a JWT as used, for as long as it could be presented (`expiresAt`); false when it was used
 * before, here or on another instance (an ID-JAG taken by the JWT bearer grant).
 */
export function useOnce(id: string, expiresAt: Date): Promise<boolean> {
  sweepUsed(new Date());
  return assertionsDao.markUsed(sha256(id), expiresAt);
}
