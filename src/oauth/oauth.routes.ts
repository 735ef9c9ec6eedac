// OAuth 2 authorization server (seed 001 part A): authorize and consent, both token variants,
// client registration, the protected resource, revocation, introspection and metadata.
import { Router, type Request, type RequestHandler } from 'express';
import type { AccessTokens } from '../common/access-tokens';
import { signInLimits } from '../auth/sign-in-limits';
import { basicClientCredentials } from '../common/authorization';
import { clientAddress, limitsFor, type RouteLimit } from '../common/rate-limit';
import { validate } from '../common/validation';
import type { Config } from '../config';
import type { Csrf } from '../session/csrf';
import { formBody } from '../session/session.routes';
import { createAuthorizeController } from './authorize.controller';
import * as clientsController from './clients.controller';
import * as clientsValidation from './clients.validation';
import { createOAuthController } from './oauth.controller';
import { oauthBodyErrors } from './oauth.body-errors';
import { tooManyTokenRequests } from './oauth.errors';
import { createOAuthServers } from './oauth.server';
import { createTokenController } from './token.controller';

/** The OAuth client a token request names, by HTTP Basic or by parameter. */
function byClientId(req: Request): string | undefined {
  const fromParameters: unknown = req.body?.client_id ?? req.query.client_id;
  const clientId = basicClientCredentials(req.headers.authorization)?.name ?? (typeof fromParameters === 'string' ? fromParameters : undefined);
  return clientId ? clientId.slice(0, 256) : undefined;
}

export const AUTHORIZE_PATHS = ['/v1/oauth/authorize', '/authorize', '/oauth/authorize'];

export function createOAuthRouter(config: Config, accessTokens: AccessTokens, sessions: RequestHandler, csrf: Csrf): Router {
  const servers = createOAuthServers(config.oauth);
  const authorize = createAuthorizeController(servers, config.oauth, csrf);
  const token = createTokenController(servers, config.oauth, signInLimits(config));
  const oauth = createOAuthController(config);
  const router = Router();

  router.get(AUTHORIZE_PATHS, sessions, authorize.show);
  router.post(AUTHORIZE_PATHS, sessions, formBody, csrf.require, authorize.decide);

  const window = 15 * 60_000;
  const tokenRules: RouteLimit[] = [
    { rule: { name: 'token:address', limit: config.limits.tokenPerAddress, windowMs: window }, key: clientAddress },
    { rule: { name: 'token:client', limit: config.limits.tokenPerClient, windowMs: window }, key: byClientId },
  ];
  const tokenLimits = limitsFor(config, tokenRules, tooManyTokenRequests);
  // A form the parser refuses is answered in the OAuth format too.
  const oauthForm = [formBody, oauthBodyErrors];
  router.post('/v1/oauth/token', ...oauthForm, ...tokenLimits, token.variantA);
  router.post('/oauth/token', ...oauthForm, ...tokenLimits, token.variantB);
  router.post('/oauth/revoke', ...oauthForm, oauth.revoke);
  router.post('/oauth/introspect', ...oauthForm, oauth.introspect);
  router.get('/.well-known/oauth-authorization-server', oauth.metadata);
  router.get('/api/user', oauth.currentUser);

  const user = clientsController.requireUser(accessTokens);
  router.post('/oauth/clients', sessions, user, validate(clientsValidation.registerClient), clientsController.register);
  router.get('/oauth/clients', sessions, user, clientsController.list);
  router.delete('/oauth/clients/:clientId', sessions, user, clientsController.remove);
  return router;
}
