// OAuth 2 authorization server (seed 001 part A): authorize and consent, both token variants,
// client registration, the protected resource, revocation, introspection and metadata.
import { Router, type RequestHandler } from 'express';
import type { AccessTokens } from '../common/access-tokens';
import { limitsFor, TOKEN_ENDPOINT_RULES } from '../common/rate-limit';
import { validate } from '../common/validation';
import type { Config } from '../config';
import { requireCsrf } from '../session/csrf';
import { formBody } from '../session/session.routes';
import { createAuthorizeController } from './authorize.controller';
import * as clientsController from './clients.controller';
import * as clientsValidation from './clients.validation';
import { createOAuthController } from './oauth.controller';
import { OAuthErrorResponse } from './oauth.errors';
import { createOAuthServers } from './oauth.server';
import { createTokenController } from './token.controller';

export const AUTHORIZE_PATHS = ['/v1/oauth/authorize', '/authorize', '/oauth/authorize'];

export function createOAuthRouter(config: Config, accessTokens: AccessTokens, sessions: RequestHandler): Router {
  const servers = createOAuthServers(config.oauth);
  const authorize = createAuthorizeController(servers, config.oauth);
  const token = createTokenController(servers, config.oauth);
  const oauth = createOAuthController(servers, config);
  const router = Router();

  router.get(AUTHORIZE_PATHS, sessions, authorize.show);
  router.post(AUTHORIZE_PATHS, sessions, formBody, requireCsrf, authorize.decide);

  const tokenLimits = limitsFor(config, TOKEN_ENDPOINT_RULES, new OAuthErrorResponse('too_many_requests', 'Too many token requests, try again later', 429));
  router.post('/v1/oauth/token', formBody, ...tokenLimits, token.variantA);
  router.post('/oauth/token', formBody, ...tokenLimits, token.variantB);
  router.post('/oauth/revoke', formBody, oauth.revoke);
  router.post('/oauth/introspect', formBody, oauth.introspect);
  router.get('/.well-known/oauth-authorization-server', oauth.metadata);
  router.get('/api/user', oauth.currentUser);

  const user = clientsController.requireUser(accessTokens);
  router.post('/oauth/clients', sessions, user, validate(clientsValidation.registerClient), clientsController.register);
  router.get('/oauth/clients', sessions, user, clientsController.list);
  router.delete('/oauth/clients/:clientId', sessions, user, clientsController.remove);
  return router;
}
