// Token endpoints of seed 000: POST /auth (email and password) and POST /auth/refresh-token
// (a valid access token in the Authorization header plus its refresh token in the body).
import { Router, type ErrorRequestHandler } from 'express';
import { AppError } from '../common/errors';
import type { AccessTokens } from '../common/access-tokens';
import { requireJwt } from '../common/guards';
import { limitsFor, perAddress } from '../common/rate-limit';
import { seedRefusals } from '../common/refusals';
import { validate } from '../common/validation';
import type { Config } from '../config';
import { createAuthController } from './auth.controller';
import * as authValidation from './auth.validation';
import type { PasswordVerifier } from './auth.service';

/** Seed 000: an unexpected failure while issuing tokens is a 500 with an empty body. */
const unexpectedAsEmpty: ErrorRequestHandler = (err, _req, _res, next) =>
  next(err instanceof AppError ? err : new AppError(500, undefined, {}, { cause: err }));

export function createAuthRouter(accessTokens: AccessTokens, config: Config, verifyPassword: PasswordVerifier): Router {
  const controller = createAuthController(accessTokens, verifyPassword);
  const refreshLimit = perAddress('refresh:address', config.limits.refreshPerAddress);
  const router = Router();
  // Failed passwords are counted by the sign-in budget inside the service, whichever route checks them.
  router.post('/', validate(authValidation.login), controller.login);
  // The header is checked before the body: 401/403 with empty bodies come first.
  router.post('/refresh-token', ...limitsFor(config, [refreshLimit]), requireJwt(accessTokens), controller.refresh);
  router.use(seedRefusals, unexpectedAsEmpty);
  return router;
}
