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
}

export interface AccessTokenClaims extends AccessTokenPayload {
  iat: number;
  exp: number;
}

export interface AccessTokens {
  sign(payload: AccessTokenPayload): string;
  /** Returns the claims, or null for a bad signature, an expired token, a wrong algorithm or bad claims. */
  verify(token: string): AccessTokenClaims | null;
}

function hasSeedClaims(value: unknown): value is AccessTokenClaims {
  if (typeof value !== 'object' || value === null) return false;
  const claims = value as Record<string, unknown>;
  return (
    typeof claims.userId === 'string' &&
    typeof claims.email === 'string' &&
    typeof claims.permissionFlags === 'number' &&
    typeof claims.refreshKey === 'string' &&
    typeof claims.exp === 'number'
  );
}

export function createAccessTokens(secret: string): AccessTokens {
  const key: KeyObject = createSecretKey(Buffer.from(secret, 'utf8'));
  return {
    sign(payload) {
      const { userId, email, permissionFlags, refreshKey } = payload;
      return jwt.sign({ userId, email, permissionFlags, refreshKey }, key, {
        algorithm: 'HS256',
        expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS,
      });
    },
    verify(token) {
      try {
        const claims = jwt.verify(token, key, { algorithms: ['HS256'] });
        return hasSeedClaims(claims) ? claims : null;
      } catch {
        return null;
      }
    },
  };
}
