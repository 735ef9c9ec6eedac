// The protected resource of seed 001 (GET /api/user).
import type { Request, Response } from 'express';
import { bearerToken } from '../common/authorization';
import { AppError } from '../common/errors';
import * as usersService from '../users/users.service';
import { toUserRead } from '../users/users.types';
import * as tokensService from './tokens/tokens.service';

const REALM = 'Bearer realm="api"';

/** RFC 6750 errors of the protected resource; seed 001 names the bad-token error invalid_request. */
function bearerError(status: 401 | 403, error: 'invalid_request' | 'insufficient_scope', description: string): AppError {
  return new AppError(status, { error, error_description: description }, { 'WWW-Authenticate': `${REALM}, error="${error}"` });
}

export function createOAuthController(tokenCache: tokensService.AccessTokenCache | undefined) {
  return {
    async currentUser(req: Request, res: Response): Promise<void> {
      const token = bearerToken(req.headers.authorization);
      if (token === null) {
        // RFC 6750 §3.1: no error code when no credentials were sent, only the challenge.
        throw new AppError(
          401,
          { error_description: 'Send an access token as Authorization: Bearer <token>' },
          { 'WWW-Authenticate': REALM },
        );
      }
      const doc = token ? await tokensService.liveAccessToken(token, tokenCache) : null;
      if (!doc) throw bearerError(401, 'invalid_request', 'The access token is invalid, expired or revoked');
      if (!doc.scope.includes('read')) throw bearerError(403, 'insufficient_scope', 'The token lacks the read scope');
      if (!doc.userId) throw bearerError(403, 'insufficient_scope', 'This token acts for a client application, not a user');
      const user = await usersService.findById(doc.userId);
      if (!user) throw bearerError(401, 'invalid_request', 'The user of this token no longer exists');
      res.json(toUserRead(user));
    },
  };
}
