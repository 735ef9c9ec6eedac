// OpenID Connect: discovery (and the RFC 8414 document, which says the same), the JWK Set, userinfo.
import type { Request, Response } from 'express';
import { bearerToken } from '../../common/authorization';
import { AppError } from '../../common/errors';
import { noStore } from '../../common/no-store';
import type { Config } from '../../config';
import * as usersService from '../../users/users.service';
import {
  CLAIMS_SUPPORTED,
  CLIENT_AUTH_METHODS,
  GRANT_TYPES,
  ID_TOKEN_SIGNING_ALGORITHM,
  PKCE_METHODS,
  PROMPTS,
  RESPONSE_MODES,
  RESPONSE_TYPES,
  SCOPES,
} from '../protocol';
import * as tokensService from '../tokens/tokens.service';
import { userClaims } from './id-tokens.service';
import type { KeyRing } from './signing-keys.service';

/** Everything the server really supports, for both discovery documents; each list from the protocol's vocabulary. */
export function providerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    jwks_uri: `${issuer}/oauth/jwks`,
    registration_endpoint: `${issuer}/oauth/register`,
    end_session_endpoint: `${issuer}/oauth/end-session`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    device_authorization_endpoint: `${issuer}/oauth/device_authorization`,
    scopes_supported: SCOPES,
    response_types_supported: RESPONSE_TYPES,
    response_modes_supported: RESPONSE_MODES,
    grant_types_supported: GRANT_TYPES,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [ID_TOKEN_SIGNING_ALGORITHM],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    code_challenge_methods_supported: PKCE_METHODS,
    prompt_values_supported: PROMPTS,
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 6750 §3.1 errors of the userinfo endpoint. */
function userinfoError(status: 401 | 403, error: 'invalid_token' | 'insufficient_scope', description: string): AppError {
  return new AppError(
    status,
    { error, error_description: description },
    { 'WWW-Authenticate': `Bearer error="${error}", error_description="${description}"` },
  );
}

export function createOidcController(config: Config, keys: KeyRing, tokenCache: tokensService.AccessTokenCache | undefined) {
  return {
    metadata(_req: Request, res: Response): void {
      res.json(providerMetadata(config.publicUrl));
    },

    async jwks(_req: Request, res: Response): Promise<void> {
      // Short enough that a rotation reaches clients that cache it.
      res.set('Cache-Control', 'public, max-age=60').json(await keys.jwks());
    },

    async userinfo(req: Request, res: Response): Promise<void> {
      const token = bearerToken(req.headers.authorization);
      if (token === null)
        throw new AppError(
          401,
          { error_description: 'Send the access token as Authorization: Bearer <token>' },
          { 'WWW-Authenticate': 'Bearer' },
        );
      const doc = token ? await tokensService.liveAccessToken(token, tokenCache) : null;
      if (!doc?.userId) throw userinfoError(401, 'invalid_token', 'The access token is invalid, expired or revoked');
      if (!doc.scope.includes('openid')) throw userinfoError(403, 'insufficient_scope', 'The token lacks the openid scope');
      const user = await usersService.findById(doc.userId);
      if (!user) throw userinfoError(401, 'invalid_token', 'The person of this token no longer exists');
      noStore(res).json(userClaims(user, doc.scope));
    },
  };
}
