// Request objects by value (OIDC Core §6.1, RFC 9101): the `request` parameter is a JWT whose claims
// are authorization request parameters. It is signed with one of the client's keys (or, for a
// client_secret_jwt client, its secret), or unsigned (`alg: none`) unless the client registered a
// request_object_signing_alg other than none, or must sign (require_signed_request_object): an
// unsigned object says no more than the query could. It is read before anything else of the request
// (RFC 9101 §6.3: the redirect URI included), and its parameters win over the query's (OpenID
// Connect Core §6.1); client_id and response_type must agree with the query's. It may not carry
// `request` or `request_uri` (RFC 9101 §4; RFC 9126 §2.1 at PAR).
import jwt from 'jsonwebtoken';
import { clientKey, type JwtContext } from '../clients/client-assertions.service';
import type { ClientDocument } from '../clients/clients.model';
import type { OAuthParameters } from '../oauth.parameters';
import { FAPI_ALGORITHMS, LIMITS, MESSAGE_SIGNING_REQUEST_OBJECT_SECONDS, REQUEST_OBJECT_ALGORITHMS } from '../protocol';
import { isFapi, isMessageSigning, requiresSignedRequestObject } from '../clients/fapi.service';

/** JWT claims that describe the object itself, not the request. */
const ENVELOPE = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sub']);

/** A request object applied: the request's parameters, and whether the object was signed. */
export interface AppliedRequestObject {
  parameters: OAuthParameters;
  signed: boolean;
}

/** A claim as the parameter it stands for: text as it is, a JSON value (claims, max_age) written out. */
const asParameter = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Why a request object lives too long, if it does. OpenID Connect Core §6.1 asks for no `exp` (the
 * OpenID Foundation's plans send signed objects without one), so an `exp` is capped when it is there:
 * at most LIMITS.jwtLifetimeSeconds ahead, an `iat` at most that long ago. FAPI 2.0 Message Signing
 * §5.3.1 asks for more of its clients' objects: `nbf` no more than 60 minutes old, and `exp` no more
 * than 60 minutes after it (that window replaces the cap). A claim of time must be a number.
 */
function beyondLifetime(claims: jwt.JwtPayload, now: number, client: ClientDocument): string | undefined {
  for (const name of ['exp', 'iat', 'nbf'] as const) {
    if (claims[name] !== undefined && (typeof claims[name] !== 'number' || !Number.isFinite(claims[name]))) {
      return `the request object's ${name} is not a time`;
    }
  }
  const { jwtLifetimeSeconds: lifetime, jwtClockToleranceSeconds: tolerance } = LIMITS;
  if (isMessageSigning(client)) {
    const window = MESSAGE_SIGNING_REQUEST_OBJECT_SECONDS;
    if (claims.nbf === undefined) return 'a FAPI 2.0 Message Signing request object must carry nbf';
    if (claims.exp === undefined) return 'a FAPI 2.0 Message Signing request object must carry exp';
    if (claims.nbf < now - window - tolerance) return `the request object's nbf is more than ${window / 60} minutes ago`;
    if (claims.exp - claims.nbf > window) return `the request object's exp is more than ${window / 60} minutes after its nbf`;
    return undefined;
  }
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
): Promise<AppliedRequestObject | string> {
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
  if (alg === 'none' && requiresSignedRequestObject(client))
    return "this client's request objects must be signed (require_signed_request_object)";
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
  const tooLong = beyondLifetime(claims, Math.floor(Date.now() / 1000), client);
  if (tooLong) return tooLong;
  if (claims.request !== undefined || claims.request_uri !== undefined)
    return 'a request object may not carry request or request_uri (RFC 9101 §4)';
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
  return { parameters: { ...query, ...inside }, signed: alg !== 'none' };
}
