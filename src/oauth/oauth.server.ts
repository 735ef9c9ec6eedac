// The two token-issuing configurations of @node-oauth/oauth2-server (variant A under /v1/oauth with
// its shorter default lifetime, variant B under /oauth), and the bridge from Express requests to the
// library's form-only Request: parameters already collected and checked (client credentials
// included, decoded) are handed over as a form body.
import OAuth2Server, { Request as OAuthRequest, Response as OAuthResponse } from '@node-oauth/oauth2-server';
import type { Config } from '../config';
import type { Parameters } from './oauth.parameters';
import { createOAuthModel, type OAuthModel } from './oauth.storage';
import { DEVICE_CODE_GRANT } from './clients/clients.model';
import { DeviceCodeGrant } from './device/device.grant';
import { CheckedRefreshGrant } from './tokens/refresh.grant';

export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 600;

export interface OAuthServers {
  variantA: OAuth2Server;
  variantB: OAuth2Server;
  model: OAuthModel;
}

export function createOAuthServers(oauth: Config['oauth']): OAuthServers {
  const model = createOAuthModel({ refreshGraceSeconds: oauth.refreshGraceSeconds });
  const common = {
    model,
    refreshTokenLifetime: oauth.refreshTokenLifetime,
    authorizationCodeLifetime: AUTHORIZATION_CODE_LIFETIME_SECONDS,
    allowEmptyState: true,
    enablePlainPKCE: true,
    alwaysIssueNewRefreshToken: true,
    extendedGrantTypes: { refresh_token: CheckedRefreshGrant, [DEVICE_CODE_GRANT]: DeviceCodeGrant },
    // Public clients refresh without a secret; the model's getClient refuses confidential ones that try.
    requireClientAuthentication: { refresh_token: false, [DEVICE_CODE_GRANT]: false },
  };
  return {
    variantA: new OAuth2Server({ ...common, accessTokenLifetime: oauth.v1AccessTokenLifetime }),
    variantB: new OAuth2Server({ ...common, accessTokenLifetime: oauth.accessTokenLifetime }),
    model,
  };
}

export function libraryRequest(parameters: Parameters): OAuthRequest {
  const headers = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' };
  return new OAuthRequest({ method: 'POST', query: {}, headers, body: parameters });
}

export { OAuthResponse };
