// Token endpoints of seed 000: POST /auth (email and password) and POST /auth/refresh-token
// (a valid access token in the Authorization header plus its refresh token in the body).
import { Router } from 'express';
import type { AccessTokens } from '../common/access-tokens';
import { requireAccessToken } from '../common/guards';
import { validate } from '../common/validation';
import { createAuthController } from './auth.controller';
import * as authValidation from './auth.validation';

export function createAuthRouter(accessTokens: AccessTokens): Router {
  const controller = createAuthController(accessTokens);
  const router = Router();
  router.post('/', validate(authValidation.login), controller.login);
  // The header is checked before the body: 401/403 with empty bodies come first.
  router.post('/refresh-token', requireAccessToken(accessTokens), controller.refresh);
  return router;
}
