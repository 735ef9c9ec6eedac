// Guards shared by features. Seed 000's rules for the Authorization header: absent or not Bearer is
// 401 with an empty body; a token that is malformed, badly signed or expired is 403 with an empty body.
import type { RequestHandler } from 'express';
import type { AccessTokenClaims, AccessTokens } from './access-tokens';
import { bearerToken } from './authorization';
import { ForbiddenError, UnauthorizedError } from './errors';

export interface JwtLocals {
  jwt: AccessTokenClaims;
}

export function requireAccessToken(accessTokens: AccessTokens): RequestHandler {
  return (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (token === null) throw new UnauthorizedError();
    const claims = token ? accessTokens.verify(token) : null;
    if (!claims) throw new ForbiddenError();
    (res.locals as JwtLocals).jwt = claims;
    next();
  };
}
