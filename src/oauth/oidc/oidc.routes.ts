// OpenID Connect provider endpoints (beyond the seeds): discovery, the JWK Set and userinfo.
import { Router } from 'express';
import type { Config } from '../../config';
import { createOidcController } from './oidc.controller';
import type { KeyRing } from './signing-keys.service';

export function createOidcRouter(config: Config, keys: KeyRing): Router {
  const oidc = createOidcController(config, keys);
  const router = Router();
  router.get(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'], oidc.metadata);
  router.get('/oauth/jwks', oidc.jwks);
  router.get('/oauth/userinfo', oidc.userinfo);
  router.post('/oauth/userinfo', oidc.userinfo);
  return router;
}
