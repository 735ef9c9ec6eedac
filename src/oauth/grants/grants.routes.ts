// Connected applications (beyond the seeds): the Revoke buttons of /home, and the same as a JSON API
// for the person's own access token from POST /auth.
import { Router, type RequestHandler } from 'express';
import type { AccessTokens } from '../../common/access-tokens';
import { requireJwt } from '../../common/guards';
import { requireSession } from '../../session/session.middleware';
import type { Csrf } from '../../web/csrf';
import { pageFormBody } from '../../web/form-body';
import { pageRefusals } from '../../web/layout';
import { validate } from '../../common/validation';
import { listGrants } from './grants.validation';
import * as grantsController from './grants.controller';
import type { ClientRegistry, TokenLifetimes } from './grants.service';

export function createGrantsRouter(
  accessTokens: AccessTokens,
  sessions: RequestHandler,
  csrf: Csrf,
  issuer: string,
  clients: ClientRegistry,
  /** How long a revoked application's tokens could live (a revocation is remembered as long). */
  lifetimes: TokenLifetimes,
): Router {
  const jwt = requireJwt(accessTokens);
  const router = Router();
  // The Open link: this server starts a sign-in at the application (OIDC Core §4).
  router.get('/home/applications/:clientId/open', sessions, requireSession(), grantsController.openFrom(issuer, clients));
  router.post(
    '/home/applications/:clientId/revoke',
    sessions,
    pageFormBody,
    csrf.require,
    requireSession(),
    grantsController.revokeFromHome(lifetimes),
    pageRefusals,
  );
  router.get('/oauth/grants', jwt, validate(listGrants), grantsController.listFor(clients));
  router.delete('/oauth/grants/:clientId', jwt, grantsController.revoke(lifetimes));
  return router;
}
