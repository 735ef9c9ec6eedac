// Seed 000's access tokens: HS256 JSON web tokens signed with JWT_SECRET. The secret is turned into
// a KeyObject once, because jsonwebtoken re-parses a string secret as a possible PEM key on every call.
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

export const ACCESS_TOKEN_LIFETIME_SECONDS = 36_000;

export interface AccessTokenPayload {
  userId: string;
  email: string;
  permissionFlags: number;
  refreshKey: string;
  /** The user's credentials stamp when the token was issued (ms of the last password change, 0 for none). */
  credentials: number;
}

export interface AccessTokenClaims extends AccessTokenPayload {
  iat: number;
  exp: number;
}

/** The user's credentials stamp now; null when the user no longer exists. */
export type CredentialsStamp = (userId: string) => Promise<number | null>;

export interface AccessTokens {
  sign(payload: AccessTokenPayload): string;
  /** Returns the claims, or null for a bad signature, an expired token, a wrong algorithm or bad claims. */
  verify(token: string): AccessTokenClaims | null;
  /**
   * verify, and then null too when the password changed or the account went since the token was
   * issued: a stolen token ends when the owner reacts (docs/security.md).
   */
  verifyCurrent(token: string): Promise<AccessTokenClaims | null>;
}

function hasSeedClaims(value: unknown): value is AccessTokenClaims {
  if (typeof value !== 'object' || value === null) return false;
  const claims = value as Record<string, unknown>;
  return (
    typeof claims.userId === 'string' &&
    typeof claims.email === 'string' &&
    typeof claims.permissionFlags === 'number' &&
    typeof claims.refreshKey === 'string' &&
    typeof claims.credentials === 'number' &&
    typeof claims.exp === 'number'
  );
}

export function createAccessTokens(secret: string, credentialsStamp: CredentialsStamp): AccessTokens {
  const key: KeyObject = createSecretKey(Buffer.from(secret, 'utf8'));
  function verify(token: string): AccessTokenClaims | null {
    try {
      const claims = jwt.verify(token, key, { algorithms: ['HS256'] });
      return hasSeedClaims(claims) ? claims : null;
    } catch {
      return null;
    }
  }
  return {
    sign(payload) {
      const { userId, email, permissionFlags, refreshKey, credentials } = payload;
      return jwt.sign({ userId, email, permissionFlags, refreshKey, credentials }, key, {
        algorithm: 'HS256',
        expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS,
      });
    },
    verify,
    async verifyCurrent(token) {
      const claims = verify(token);
      return claims && (await credentialsStamp(claims.userId)) === claims.credentials ? claims : null;
    },
  };
}
