// User records (seed 000): create, read, list, replace, partially update and delete. By default no
// credentials are required, as the seed says; USERS_API_AUTH=jwt (docs/decisions.md) protects everything
// but POST /users with the access token from POST /auth.
import { Router, type RequestHandler } from 'express';
import type { AccessTokens } from '../common/access-tokens';
import { requireJwt } from '../common/guards';
import { limitsFor, perAddress } from '../common/rate-limit';
import { seedRefusals } from '../common/refusals';
import { validate } from '../common/validation';
import type { Config } from '../config';
import type { PasswordVerifier } from '../sign-in/sign-in.service';
import * as usersController from './users.controller';
import type { AccessEndedHook } from './users.service';
import * as usersValidation from './users.validation';

export function createUsersRouter(
  config: Config,
  accessTokens: AccessTokens,
  accessEnded: AccessEndedHook,
  verifyPassword: PasswordVerifier,
): Router {
  const protectedMode = config.usersApiAuth === 'jwt';
  // In the protected mode: 401/403 for the token, then 403 for someone else's record, then the seed's order.
  const signedIn: RequestHandler[] = protectedMode ? [requireJwt(accessTokens), usersController.loadCaller] : [];
  const mayList: RequestHandler[] = protectedMode ? [usersController.requireMayList] : [];
  const mayManage: RequestHandler[] = protectedMode ? [usersController.requireMayManage as RequestHandler] : [];

  const signUpLimits = limitsFor(config, [perAddress('sign-up:address', config.limits.signUpPerAddress)]);

  const router = Router();
  router.get('/', ...signedIn, ...mayList, validate(usersValidation.listUsers), usersController.list);
  router.post('/', validate(usersValidation.createUser), ...signUpLimits, usersController.create);
  router
    .route('/:userId')
    .all(...signedIn, ...mayManage, usersController.loadUser)
    .get(usersController.get)
    .put(validate(usersValidation.putUser), usersController.update(accessEnded, verifyPassword))
    .patch(validate(usersValidation.patchUser), usersController.update(accessEnded, verifyPassword))
    .delete(usersController.remove(accessEnded));
  // The sign-up budget and a full password-hashing queue (common/passwords.ts) alike.
  router.use(seedRefusals);
  return router;
}
