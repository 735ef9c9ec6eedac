// OpenID Connect provider endpoints (beyond the seeds): discovery, the JWK Set, userinfo and
// RP-initiated logout.
import { Router, type RequestHandler } from 'express';
import type { Config } from '../../config';
import type { Csrf } from '../../web/csrf';
import { formBody } from '../../web/form-body';
import { createEndSessionController } from './end-session.controller';
import type { AccessTokenCache } from '../tokens/tokens.service';
import type { IdTokens } from './id-tokens.service';
import { createOidcController } from './oidc.controller';
import type { KeyRing } from './signing-keys.service';

export function createOidcRouter(
  config: Config,
  keys: KeyRing,
  idTokens: IdTokens,
  sessions: RequestHandler,
  csrf: Csrf,
  tokenCache: AccessTokenCache | undefined,
): Router {
  const oidc = createOidcController(config, keys, tokenCache);
  const endSession = createEndSessionController(idTokens, csrf);
  const router = Router();
  router.get('/oauth/end-session', sessions, endSession.endSession);
  router.post('/oauth/end-session', sessions, formBody, csrf.requireWhenSignedIn, endSession.endSession);
  router.get(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'], oidc.metadata);
  router.get('/oauth/jwks', oidc.jwks);
  router.get('/oauth/userinfo', oidc.userinfo);
  router.post('/oauth/userinfo', oidc.userinfo);
  return router;
}
