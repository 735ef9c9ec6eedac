// The authorization endpoint of seed 001 part A (RFC 6749 §3.1): the consent page and the decision,
// under the three paths the seed names. Browser routes: they need a session and a CSRF token.
import { pageRefusals } from '../../web/layout';
import * as clientsService from '../clients/clients.service';
import type { Stores } from '../../stores';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Clock } from '../../common/clock';
import type { DpopProofs } from '../dpop/dpop.service';
import type { Config } from '../../config';
import type { Csrf } from '../../web/csrf';
import type { DecisionHold } from '../../sign-in/journey.types';
import { bodyField } from '../../common/request-body';
import { formBody, pageFormBody } from '../../web/form-body';
import type { AuthorizationSigner } from './deps';
import { createAuthorizeController } from './authorize.controller';
import { createPushedRequestsController } from './pushed-requests.controller';
import { limitRule } from '../../common/rate-limit';
import { OAuthErrorResponse, oauthBodyErrors, oauthRefusals } from '../oauth.errors';
import { createAuthorizeService } from './authorize.service';
import { ENDPOINTS } from '../protocol';
import type { TokenIssuer } from '../tokens/issuing.service';
import type { BackchannelLogout } from '../oidc/backchannel.service';

/** Seed 001 serves the endpoint under three paths. */
export const AUTHORIZE_PATHS = ['/v1/oauth/authorize', '/authorize', ENDPOINTS.authorization];

export function createAuthorizeRouter(
  idTokens: AuthorizationSigner,
  config: Config,
  sessions: RequestHandler,
  pages: { csrf: Csrf; decisions: DecisionHold },
  backchannel: Pick<BackchannelLogout, 'granted'>,
  clock: Clock,
  dpop: DpopProofs,
  issue: TokenIssuer,
  stores: Stores,
): { router: Router; resume: AuthorizeResume } {
  const service = createAuthorizeService(config, idTokens, backchannel, issue, stores, clock);
  const authorize = createAuthorizeController(service, pages, AUTHORIZE_PATHS);
  // RATE_LIMITS: counted once the client is known (clients.service.ts ClientBudgets).
  const authenticate = clientsService.createClientAuthentication(config, stores, {
    perAddress: limitRule('par:address', config.limits.pushedRequestsPerAddress),
    perClient: limitRule('par:client', config.limits.pushedRequestsPerClient),
  });
  const pushed = createPushedRequestsController(service, clock, dpop, authenticate);
  const router = Router();
  // RFC 9126 §2: a form, authenticated as at the token endpoint; answered in JSON.
  router.post(ENDPOINTS.pushedAuthorization, formBody, oauthBodyErrors, pushed.push, oauthRefusals);
  // RFC 9126 §2.3: any other method is 405.
  router.all(ENDPOINTS.pushedAuthorization, () => {
    throw new OAuthErrorResponse('invalid_request', 'Push with POST', 405, { Allow: 'POST' });
  });
  router.get(AUTHORIZE_PATHS, sessions, authorize.show, pageRefusals);
  // OIDC Core 3.1.2.1: an authorization request may come as a form too. The consent page's own form
  // is the one that carries a decision, and only it needs the CSRF token.
  const requestOrDecision: RequestHandler = (req, res, next) =>
    bodyField(req, 'decision') === undefined ? authorize.show(req, res) : next();
  router.post(AUTHORIZE_PATHS, sessions, pageFormBody, requestOrDecision, pages.csrf.require, authorize.decide, pageRefusals);
  return { router, resume: authorize.resume };
}

/** Answers an authorization request a sign-in came from, when it needs nothing more (authorize.controller.ts `resume`). */
export type AuthorizeResume = (req: Request, res: Response, location: string) => Promise<boolean>;
