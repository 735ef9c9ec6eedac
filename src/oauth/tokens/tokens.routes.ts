// The token endpoints of both seed 001 variants, RFC 7009 revocation and RFC 7662 introspection, each
// with its own body parsers.
import type { Clock } from '../../common/clock';
import type { Stores } from '../../stores';
import { Router } from 'express';
import type { PasswordVerifier } from '../../auth/auth.service';
import { jsonBody } from '../../common/json-body';
import type { Config } from '../../config';
import { formBody } from '../../web/form-body';
import { oauthBodyErrors, oauthOutage, oauthRefusals } from '../oauth.errors';
import type { IdTokens } from '../oidc/id-tokens.service';
import type { ActivityLog } from '../../account/activity.service';
import type { TrustedIssuers } from './trusted-issuers';
import { createTokensController } from './tokens.controller';
import { ENDPOINTS } from '../protocol';
import type { DpopProofs } from '../dpop/dpop.service';
import type { TokenStrategies } from './strategies';

export function createTokensRouter(
  config: Config,
  verifyPassword: PasswordVerifier,
  idTokens: IdTokens,
  tokens: TokenStrategies,
  dpop: DpopProofs,
  stores: Stores,
  clock: Clock,
  agents: { trusted: TrustedIssuers; activity: Pick<ActivityLog, 'record'> },
): Router {
  const endpoints = createTokensController(config, verifyPassword, idTokens, tokens, dpop, stores, clock, { idTokens, ...agents });
  // These endpoints parse their own bodies, so a body the parsers refuse is answered in the OAuth format.
  const body = [jsonBody, formBody, oauthBodyErrors];
  const router = Router();
  // The token endpoints' budgets are counted once the client is known (tokens.controller.ts).
  router.post('/v1/oauth/token', ...body, endpoints.v1Token, oauthOutage);
  router.post(ENDPOINTS.token, ...body, endpoints.token, oauthOutage);
  router.post(ENDPOINTS.revocation, ...body, endpoints.revoke);
  router.post(ENDPOINTS.introspection, ...body, endpoints.introspect);
  router.use(oauthRefusals);
  return router;
}
