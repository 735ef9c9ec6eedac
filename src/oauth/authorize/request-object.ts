// Request objects by value (OIDC Core §6.1, RFC 9101): the `request` parameter is a JWT whose claims
// are authorization request parameters. It is signed with one of the client's keys (or, for a
// client_secret_jwt client, its secret), or unsigned (`alg: none`) unless the client registered a
// request_object_signing_alg other than none: an unsigned object says no more than the query could.
// Its parameters win over the query's; client_id and response_type must agree with the query's.
import jwt from 'jsonwebtoken';
import { clientKey, type JwtContext } from '../clients/client-assertions.service';
import type { ClientDocument } from '../clients/clients.model';
import type { OAuthParameters } from '../oauth.parameters';
import { FAPI_ALGORITHMS, LIMITS, REQUEST_OBJECT_ALGORITHMS } from '../protocol';
import { isFapi } from '../clients/fapi.service';

/** JWT claims that describe the object itself, not the request. */
const ENVELOPE = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sub', 'request', 'request_uri']);

/** A claim as the parameter it stands for: text as it is, a JSON value (claims, max_age) written out. */
const asParameter = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Why a request object lives too long, if it does: a signed one without `exp`, an `exp` more than
 * LIMITS.jwtLifetimeSeconds ahead, an `iat` that long ago, or a claim of time that is not a number. An
 * unsigned one (alg none) may leave `exp` out: anyone can make one, so a lifetime would protect
 * nothing, and the OpenID Foundation's OIDC plans send theirs without (docs/decisions.md).
 */
function beyondLifetime(claims: jwt.JwtPayload, now: number, signed: boolean): string | undefined {
  for (const name of ['exp', 'iat', 'nbf'] as const) {
    if (claims[name] !== undefined && (typeof claims[name] !== 'number' || !Number.isFinite(claims[name]))) {
      return `the request object's ${name} is not a time`;
    }
  }
  if (signed && claims.exp === undefined) return 'a signed request object must say when it expires (exp)';
  const { jwtLifetimeSeconds: lifetime, jwtClockToleranceSeconds: tolerance } = LIMITS;
  if (claims.exp !== undefined && claims.exp > now + lifetime + tolerance)
    return `the request object lives longer than ${lifetime} s (exp)`;
  if (claims.iat !== undefined && claims.iat < now - lifetime - tolerance)
    return `the request object was made more than ${lifetime} s ago (iat)`;
  return undefined;
}

/** The request's parameters with the request object's applied, or why the object is refused. */
export async function applyRequestObject(
  client: ClientDocument,
  parameters: OAuthParameters,
  context: JwtContext,
): Promise<OAuthParameters | string> {
  const token = parameters.request;
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload !== 'object' || decoded.payload === null) return 'request is not a JWT';
  const alg = decoded.header.alg;
  const registered = client.metadata?.request_object_signing_alg;
  if (!(REQUEST_OBJECT_ALGORITHMS as readonly string[]).includes(alg))
    return `request objects must be signed with ${REQUEST_OBJECT_ALGORITHMS.join(', ')}`;
  // A client that registered an algorithm gets that one only; one that did not may send any listed, none included.
  if (registered !== undefined && registered !== alg) {
    return `this client's request objects must be signed with ${registered ?? 'one of its keys'}`;
  }
  if (isFapi(client) && !(FAPI_ALGORITHMS as readonly string[]).includes(alg))
    return `a FAPI 2.0 client's request objects must be signed with ${FAPI_ALGORITHMS.join(', ')}`;
  let claims: jwt.JwtPayload;
  if (alg === 'none') {
    claims = decoded.payload;
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.exp === 'number' && claims.exp < now - LIMITS.jwtClockToleranceSeconds) return 'the request object has expired';
    if (typeof claims.nbf === 'number' && claims.nbf > now + LIMITS.jwtClockToleranceSeconds) return 'the request object is not valid yet';
  } else {
    const key = await clientKey(client, decoded.header, context);
    if (!key) return 'no key of this client matches the request object';
    try {
      claims = jwt.verify(token, key, {
        algorithms: [alg as jwt.Algorithm],
        clockTolerance: LIMITS.jwtClockToleranceSeconds,
      }) as jwt.JwtPayload;
    } catch (err) {
      return `the request object is invalid (${err instanceof Error ? err.message : 'bad signature'})`;
    }
  }
  const tooLong = beyondLifetime(claims, Math.floor(Date.now() / 1000), alg !== 'none');
  if (tooLong) return tooLong;
  if (claims.iss !== undefined && claims.iss !== client._id) return 'the request object was issued by another client (iss)';
  const audiences = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.aud !== undefined && !audiences.includes(context.issuer)) return 'the request object is meant for another server (aud)';
  if (claims.client_id !== undefined && claims.client_id !== parameters.client_id) return 'client_id differs from the query';
  if (claims.response_type !== undefined && parameters.response_type !== undefined && claims.response_type !== parameters.response_type) {
    return 'response_type differs from the query';
  }
  const inside = Object.fromEntries(
    Object.entries(claims)
      .filter(([name, value]) => !ENVELOPE.has(name) && value !== null && value !== undefined)
      .map(([name, value]) => [name, asParameter(value)]),
  );
  const { request: _object, ...query } = parameters;
  return { ...query, ...inside };
}
