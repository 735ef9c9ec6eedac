// The token endpoints of both seed 001 variants, RFC 7009 revocation and RFC 7662 introspection, each
// with its own body parsers, and the token endpoints' rate limits.
import { Router, type Request } from 'express';
import type { PasswordVerifier } from '../../auth/auth.service';
import { basicClientCredentials } from '../../common/authorization';
import { jsonBody } from '../../common/json-body';
import { bodyField } from '../../common/request-body';
import { clientAddress, limitsFor, type RouteLimit } from '../../common/rate-limit';
import type { Config } from '../../config';
import { formBody } from '../../web/form-body';
import { oauthBodyErrors, oauthOutage, tooManyTokenRequests } from '../oauth.errors';
import type { IdTokenSigner } from './issuing.service';
import { createTokensController } from './tokens.controller';
import type { AccessTokenCache } from './tokens.service';

const WINDOW_MS = 15 * 60_000;

/** The OAuth client a token request names, by HTTP Basic or by parameter. */
function byClientId(req: Request): string | undefined {
  const fromParameters: unknown = bodyField(req, 'client_id') ?? req.query.client_id;
  const clientId =
    basicClientCredentials(req.headers.authorization)?.name ?? (typeof fromParameters === 'string' ? fromParameters : undefined);
  return clientId ? clientId.slice(0, 256) : undefined;
}

export function createTokensRouter(
  config: Config,
  verifyPassword: PasswordVerifier,
  idTokens: IdTokenSigner,
  tokenCache: AccessTokenCache | undefined,
): Router {
  const tokens = createTokensController(config, verifyPassword, idTokens, tokenCache);
  const tokenRules: RouteLimit[] = [
    { rule: { name: 'token:address', limit: config.limits.tokenPerAddress, windowMs: WINDOW_MS }, key: clientAddress },
    { rule: { name: 'token:client', limit: config.limits.tokenPerClient, windowMs: WINDOW_MS }, key: byClientId },
  ];
  const tokenLimits = limitsFor(config, tokenRules, tooManyTokenRequests);
  // These endpoints parse their own bodies, so a body the parsers refuse is answered in the OAuth format.
  const body = [jsonBody, formBody, oauthBodyErrors];
  const router = Router();
  router.post('/v1/oauth/token', ...body, ...tokenLimits, tokens.v1Token, oauthOutage);
  router.post('/oauth/token', ...body, ...tokenLimits, tokens.token, oauthOutage);
  router.post('/oauth/revoke', ...body, tokens.revoke);
  router.post('/oauth/introspect', ...body, tokens.introspect);
  return router;
}
