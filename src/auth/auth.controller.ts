import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import type { AccessTokens } from '../common/access-tokens';
import { InvalidRequestError } from '../common/errors';
import { jwtClaims } from '../common/guards';
import { noStore } from '../common/no-store';
import { bodyField } from '../common/request-body';
import { clientAddress } from '../common/rate-limit';
import * as authService from './auth.service';

const MAX_REFRESH_TOKEN_LENGTH = 512;

async function sendTokenPair(res: Response, issue: () => Promise<authService.TokenPair>): Promise<void> {
  noStore(res)
    .status(201)
    .json(await issue());
}

export function createAuthController(accessTokens: AccessTokens, verifyPassword: authService.PasswordVerifier) {
  return {
    async login(req: Request, res: Response): Promise<void> {
      const { email, password } = matchedData<{ email: string; password: string }>(req, { locations: ['body'] });
      await sendTokenPair(res, () => authService.login(accessTokens, { email, password, address: clientAddress(req) }, verifyPassword));
    },

    async refresh(req: Request, res: Response): Promise<void> {
      const refreshToken = bodyField(req, 'refreshToken');
      if (refreshToken === undefined || refreshToken === null || refreshToken === '') {
        throw new InvalidRequestError(['Missing required field: refreshToken']);
      }
      if (typeof refreshToken !== 'string' || refreshToken.length > MAX_REFRESH_TOKEN_LENGTH) {
        throw new InvalidRequestError(['Invalid refresh token']);
      }
      const claims = jwtClaims(res);
      await sendTokenPair(res, () => authService.refresh(accessTokens, claims, refreshToken));
    },
  };
}
