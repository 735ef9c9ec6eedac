// Token endpoints of seed 000: POST /auth (email and password) and POST /auth/refresh-token
// (a valid access token in the Authorization header plus its refresh token in the body).
import { Router } from 'express';
import type { AccessTokens } from '../common/access-tokens';
import { AppError } from '../common/errors';
import { limitsFor, REFRESH_RULES, SIGN_IN_RULES } from '../common/rate-limit';
import type { Config } from '../config';
import { requireAccessToken } from '../common/guards';
import { validate } from '../common/validation';
import { createAuthController } from './auth.controller';
import * as authValidation from './auth.validation';

const tooManyRequests = new AppError(429, { errors: ['Too many requests, try again later'] });

export function createAuthRouter(accessTokens: AccessTokens, config: Config): Router {
  const controller = createAuthController(accessTokens);
  const router = Router();
  router.post('/', ...limitsFor(config, SIGN_IN_RULES, tooManyRequests), validate(authValidation.login), controller.login);
  // The header is checked before the body: 401/403 with empty bodies come first.
  router.post('/refresh-token', ...limitsFor(config, REFRESH_RULES, tooManyRequests), requireAccessToken(accessTokens), controller.refresh);
  return router;
}
