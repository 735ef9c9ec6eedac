// RFC 9068 JWT access tokens: signed with the key ring (the resource's algorithm, or a profile's),
// verified against the same keys (/oauth/jwks) with no database read: the keys are in memory, and an
// instance reads them again only every OIDC_KEYS_REFRESH_SECONDS. Signed as ID tokens are, with
// jsonwebtoken (node:crypto at once: about 90 us less per ES256 token than jose's WebCrypto path);
// checked with jose. A person's JWT has a record as well (revocation, their applications); a
// client's own has none, so its revocation is looked up by jti.
import { randomUUID, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import jwt from 'jsonwebtoken';
import type { Config } from '../../../config';
import type { KeyRing } from '../../oidc/signing-keys.service';
import { acrOf, JWT_ACCESS_TOKEN_TYPE, type SigningAlgorithm } from '../../protocol';
import type { AccessTokenClaims, AccessTokenFormat, SelfContainedToken } from './format';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The claims of RFC 9068 §2.2 (and §2.2.3.1's roles, RFC 9449 §6.1's cnf). */
function payloadOf(issuer: string, claims: AccessTokenClaims, now: Date, expiresAt: Date): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    iss: issuer,
    sub: claims.userId ?? claims.clientId,
    aud: claims.audience,
    client_id: claims.clientId,
    scope: claims.scope.join(' '),
    iat: seconds(now),
    exp: seconds(expiresAt),
    // 122 random bits from Node's pooled generator (randomBytes per token cost 20 us here).
    jti: randomUUID(),
  };
  if (claims.userId !== undefined) {
    if (claims.authTime) payload.auth_time = seconds(claims.authTime);
    payload.acr = acrOf(claims.amr);
    if (claims.amr?.length) payload.amr = claims.amr;
    if (claims.roles) payload.roles = claims.roles;
  }
  if (claims.jkt) payload.cnf = { jkt: claims.jkt };
  if (claims.act) payload.act = claims.act;
  return payload;
}

function selfContained(payload: JWTPayload): SelfContainedToken {
  const clientId = String(payload.client_id);
  const cnf = payload.cnf as { jkt?: unknown } | undefined;
  return {
    audience: typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []),
    clientId,
    userId: payload.sub === clientId ? undefined : payload.sub,
    scope: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
    issuedAt: new Date(payload.iat! * 1000),
    expiresAt: new Date(payload.exp! * 1000),
    jti: payload.jti!,
    jkt: typeof cnf?.jkt === 'string' ? cnf.jkt : undefined,
  };
}

/** Its claims when this server signed it as an access token and it has not expired; null otherwise; undefined when it is no JWT. */
async function verify(
  token: string,
  issuer: string,
  publicKey: (kid: string) => Promise<PublicKey | null>,
): Promise<SelfContainedToken | null | undefined> {
  let kid: string | undefined;
  try {
    ({ kid } = decodeProtectedHeader(token));
  } catch {
    return undefined;
  }
  const key = kid === undefined ? null : await publicKey(kid);
  if (!key) return null;
  try {
    const { payload } = await jwtVerify(token, key.key, {
      issuer,
      algorithms: [key.alg],
      typ: JWT_ACCESS_TOKEN_TYPE,
      requiredClaims: ['sub', 'client_id', 'exp', 'iat', 'jti', 'aud'],
    });
    return selfContained(payload);
  } catch {
    return null;
  }
}

type PublicKey = { alg: SigningAlgorithm; key: KeyObject };

export function createJwtFormat(keys: KeyRing, config: Pick<Config, 'publicUrl'>): AccessTokenFormat {
  // Public keys by kid, so a verification makes no KeyObject; a rotated key is new under its own kid.
  const publicKeys = new Map<string, PublicKey>();

  async function publicKey(kid: string) {
    const cached = publicKeys.get(kid);
    if (cached) return cached;
    const found = await keys.publicKey(kid);
    if (found) publicKeys.set(kid, found);
    return found;
  }

  return {
    async mint(claims, now) {
      if (claims.audience === undefined || claims.algorithm === undefined)
        throw new Error('A JWT access token needs an audience and an algorithm');
      const { kid, alg, privateKey } = await keys.signingKey(claims.algorithm);
      const expiresAt = new Date(now.getTime() + claims.lifetimeSeconds * 1000);
      const payload = payloadOf(config.publicUrl, claims, now, expiresAt);
      const token = jwt.sign(payload, privateKey, { algorithm: alg, header: { alg, kid, typ: JWT_ACCESS_TOKEN_TYPE } });
      return { token, expiresAt, recorded: claims.userId !== undefined };
    },

    async grant(token, audience, records) {
      const verified = await verify(token, config.publicUrl, publicKey);
      if (!verified) return verified;
      if (!verified.audience.includes(audience)) return null;
      const { scope, clientId, userId, jkt, issuedAt, jti } = verified;
      if (userId === undefined) return (await records.revoked(jti)) ? null : { scope, clientId, jkt, issuedAt };
      const doc = await records.live(token);
      // A person's token is judged by its record's time, to the millisecond (its iat has whole seconds).
      return doc && { scope, clientId, userId, jkt, issuedAt: doc.issuedAt, claims: doc.claims };
    },

    async unrecorded(token) {
      const verified = await verify(token, config.publicUrl, publicKey);
      return verified && verified.userId === undefined ? verified : null;
    },
  };
}
