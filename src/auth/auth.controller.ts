import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import type { AccessTokens } from '../common/access-tokens';
import { jwtClaims } from '../common/guards';
import { noStore } from '../common/no-store';
import { bodyField } from '../common/request-body';
import { clientAddress } from '../common/rate-limit';
import * as authService from './auth.service';
import * as authValidation from './auth.validation';
import { readBody } from '../common/request-fields';

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
      // The field says "missing" itself, in seed 000's words; a body that is not an object has no token.
      const { refreshToken } = readBody(authValidation.refresh, [], { refreshToken: bodyField(req, 'refreshToken') });
      const claims = jwtClaims(res);
      await sendTokenPair(res, () => authService.refresh(accessTokens, claims, refreshToken));
    },
  };
}
