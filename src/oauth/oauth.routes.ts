// OAuth 2 authorization server (seed 001 part A): authorize and consent, both token variants,
// client registration, the protected resource, revocation, introspection and metadata.
import type { DecisionHold } from '../sign-in/journey.types';
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { jsonBody } from '../common/json-body';
import type { AccessTokens } from '../common/access-tokens';
import type { Clock } from '../common/clock';
import type { Config } from '../config';
import type { Csrf } from '../web/csrf';
import { createAuthorizeRouter, type AuthorizeResume } from './authorize/authorize.routes';
import { createClientsRouter } from './clients/clients.routes';
import { createDemoRouter } from './demo/demo.routes';
import { createDeviceRouter } from './device/device.routes';
import { createGrantsRouter } from './grants/grants.routes';
import type { PasswordVerifier } from '../sign-in/sign-in.service';
import type { Lifecycle } from '../wiring';
import * as oauthController from './oauth.controller';
import { oauthBodyErrors } from './oauth.errors';
import { ADMIN_SCOPE, RESOURCE_SCOPE } from './protocol';
import { createBearerGuard } from './tokens/bearer.middleware';
import { createIdTokens } from './oidc/id-tokens.service';
import { createOidcRouter } from './oidc/oidc.routes';
import type { KeyRing } from './oidc/signing-keys.service';
import { createTokensRouter } from './tokens/tokens.routes';
import { createDpopProofs } from './dpop/dpop.service';
import { createTokenStrategies } from './tokens/strategies';
import { createTrustedIssuers } from './tokens/trusted-issuers';
import type { ActivityLog } from '../account/activity.service';
import type { Stores } from '../stores';

/** Mounted ahead of the app's JSON parser: the token endpoints parse their own bodies. */
export function createOAuthRouter(
  config: Config,
  accessTokens: AccessTokens,
  sessions: RequestHandler,
  csrf: Csrf,
  verifyPassword: PasswordVerifier,
  lifecycle: Lifecycle,
  keys: KeyRing,
  clock: Clock,
  stores: Stores,
  /** Where consent pages' requests wait for their decision (sign-in/interaction.ts). */
  decisions: DecisionHold,
  /** Token exchange and the JWT bearer grant: where their events go, and how trusted providers are reached. */
  agents: { activity: Pick<ActivityLog, 'record'>; upstreamFetch?: typeof fetch },
): {
  router: Router;
  requireOAuthToken: ReturnType<typeof createBearerGuard>;
  adminToken: RequestHandler;
  /** The admin API's JSON body: parsed, and refused in the OAuth shape when it cannot be. */
  adminJsonBody: [RequestHandler, ErrorRequestHandler];
  /** For the sign-in journey: answers the authorization request a sign-in came from, when it can. */
  resume: AuthorizeResume;
} {
  const idTokens = createIdTokens(keys, config);
  const tokens = createTokenStrategies(keys, config);
  const dpop = createDpopProofs(config, clock);
  const requireOAuthToken = createBearerGuard(tokens, config, dpop, stores);
  const router = Router();
  const authorize = createAuthorizeRouter(
    idTokens,
    config,
    sessions,
    { csrf, decisions },
    lifecycle.backchannel,
    clock,
    dpop,
    tokens.issue,
    stores,
  );
  router.use(authorize.router);
  const trusted = createTrustedIssuers(config, agents.upstreamFetch);
  router.use(createTokensRouter(config, verifyPassword, idTokens, tokens, dpop, stores, clock, { trusted, activity: agents.activity }));
  router.use(createClientsRouter(config, accessTokens, sessions, lifecycle.clientRemoved, stores.clientKeySets, clock));
  router.use(createGrantsRouter(accessTokens, sessions, csrf, config.publicUrl, stores.clients, config.oauth));
  router.use(createDeviceRouter(config, sessions, csrf, stores, clock));
  router.use(createOidcRouter(idTokens, sessions, csrf, requireOAuthToken, lifecycle.sessionEnded, stores.clients, config.publicUrl));
  router.get(
    '/api/user',
    requireOAuthToken({
      scope: RESOURCE_SCOPE,
      realm: 'api',
      invalidTokenError: 'invalid_request',
      clientToken: 'insufficient_scope',
      missingDescription: 'Send an access token as Authorization: Bearer <token>',
    }),
    oauthController.currentUser,
  );
  // The admin API's guard: an access token with the admin scope (a client the operator allowed).
  const adminToken = requireOAuthToken({
    scope: ADMIN_SCOPE,
    invalidTokenError: 'invalid_token',
    clientToken: 'accepted',
    missingDescription: 'Send an access token with the admin scope as Authorization: Bearer <token>',
  });
  // A page that plays a client's redirect URI, for trying the flows in a browser; never in production.
  if (!config.isProduction) router.use(createDemoRouter(config, csrf));
  return { router, requireOAuthToken, adminToken, adminJsonBody: [jsonBody, oauthBodyErrors], resume: authorize.resume };
}
