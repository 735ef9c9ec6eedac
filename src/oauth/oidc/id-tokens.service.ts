// ID tokens (OpenID Connect Core §2): the person's subject, the claims the caller chose
// (claims.service.ts says which), how they signed in, and the hashes that bind the token to its response.
import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Config } from '../../config';
import type { UserRecord } from '../../users/users.types';
import { randomToken } from '../../common/crypto';
import { acrOf, BACKCHANNEL_LOGOUT_EVENT, ID_JAG_TYPE, JARM_LIFETIME_SECONDS, LIMITS, type SigningAlgorithm } from '../protocol';

/** A logout token is for delivery now (retries included), not for keeping. */
const LOGOUT_TOKEN_LIFETIME_SECONDS = 120;
import { personClaims } from './claims.service';
import type { KeyRing } from './signing-keys.service';

/** at_hash and c_hash: the left half of the SHA-256 of the value, base64url (§3.1.3.6, §3.3.2.11). */
export function halfHash(value: string): string {
  const digest = createHash('sha256').update(value).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export interface IdTokenRequest {
  user: UserRecord;
  clientId: string;
  /** The client's id_token_signed_response_alg; RS256 when it registered none. */
  algorithm?: SigningAlgorithm;
  /** The claims about the person it carries besides `sub`. */
  claims: readonly string[];
  authTime?: Date;
  /** How the person signed in (RFC 8176); absent for authorizations older than the record of it. */
  amr?: string[];
  /** The browser session it came from (Back-Channel Logout's `sid`). */
  sid?: string;
  nonce?: string;
  accessToken?: string;
  code?: string;
}

export function createIdTokens(keys: KeyRing, config: Config) {
  /** A JWT from this issuer to one client, signed with the current key of the algorithm. */
  async function signed(claims: Record<string, unknown>, audience: string, algorithm?: SigningAlgorithm, expiresIn?: number, typ?: string) {
    const { kid, alg, privateKey } = await keys.signingKey(algorithm);
    return jwt.sign(claims, privateKey, {
      algorithm: alg,
      keyid: kid,
      ...(typ && { header: { alg, kid, typ } }),
      issuer: config.publicUrl,
      audience,
      ...(expiresIn !== undefined && { expiresIn }),
    });
  }

  return {
    /** A signed ID token for the person. */
    async sign(request: IdTokenRequest): Promise<string> {
      const claims: Record<string, unknown> = {
        ...personClaims(request.user, request.claims),
        azp: request.clientId,
        acr: acrOf(request.amr),
      };
      if (request.amr?.length) claims.amr = request.amr;
      if (request.authTime) claims.auth_time = Math.floor(request.authTime.getTime() / 1000);
      if (request.sid) claims.sid = request.sid;
      if (request.nonce) claims.nonce = request.nonce;
      if (request.accessToken) claims.at_hash = halfHash(request.accessToken);
      if (request.code) claims.c_hash = halfHash(request.code);
      return signed(claims, request.clientId, request.algorithm, config.oauth.idTokenLifetime);
    },

    /** An authorization response as a signed JWT (JARM §2.1): its values, for the client, short-lived. */
    signAuthorizationResponse(values: Record<string, string>, clientId: string, algorithm?: SigningAlgorithm): Promise<string> {
      return signed(values, clientId, algorithm, JARM_LIFETIME_SECONDS);
    },

    /** A userinfo response as a signed JWT (OIDC Core §5.3.2), for a client that registered userinfo_signed_response_alg. */
    signUserinfo(claims: Record<string, unknown>, clientId: string, algorithm: SigningAlgorithm): Promise<string> {
      return signed(claims, clientId, algorithm);
    },

    /**
     * A logout token (OpenID Connect Back-Channel Logout 1.0 §2.4): who signed out of which session,
     * for one client; never a nonce, so it cannot pass for an ID token.
     */
    signLogoutToken(logout: { userId: string; sid: string; clientId: string; algorithm?: SigningAlgorithm }): Promise<string> {
      const claims = { sub: logout.userId, sid: logout.sid, jti: randomToken(16), events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } };
      return signed(claims, logout.clientId, logout.algorithm, LOGOUT_TOKEN_LIFETIME_SECONDS, 'logout+jwt');
    },

    /**
     * The claims of an ID token this server signed, expired or not (an id_token_hint may be old), or
     * null for anything else: another signer, another algorithm than its key's (`none` included), a
     * bad signature.
     */
    async verifyHint(token: string): Promise<jwt.JwtPayload | null> {
      const decoded = jwt.decode(token, { complete: true });
      const kid = decoded?.header.kid;
      if (!decoded || typeof kid !== 'string') return null;
      const published = await keys.publicKey(kid);
      if (!published || decoded.header.alg !== published.alg) return null;
      try {
        const payload = jwt.verify(token, published.key, {
          algorithms: [published.alg],
          issuer: config.publicUrl,
          ignoreExpiration: true,
        });
        return typeof payload === 'object' ? payload : null;
      } catch {
        return null;
      }
    },

    /**
     * An unexpired ID token this server signed for `clientId` (a token exchange's subject token, ID-JAG
     * draft §4.3: the client's own): its claims, or null. A logout token (which has no nonce but an
     * `events` claim) never passes.
     */
    async verifyIdToken(token: string, clientId: string, now: Date): Promise<jwt.JwtPayload | null> {
      const payload = await this.verifyHint(token);
      if (!payload || typeof payload.exp !== 'number' || payload.exp * 1000 <= now.getTime() || payload.events !== undefined) return null;
      const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      return audience.includes(clientId) && typeof payload.sub === 'string' ? payload : null;
    },

    /** An Identity Assertion JWT Authorization Grant for another authorization server (`audience`), short-lived, typed oauth-id-jag+jwt. */
    signIdJag(claims: Record<string, unknown>, audience: string): Promise<string> {
      return signed({ ...claims, jti: randomToken(16) }, audience, undefined, LIMITS.idJagLifetimeSeconds, ID_JAG_TYPE);
    },
  };
}

export type IdTokens = ReturnType<typeof createIdTokens>;
