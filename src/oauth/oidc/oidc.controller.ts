// OpenID Connect: discovery (and the RFC 8414 document, which says the same), the JWK Set, userinfo.
import type { Request, RequestHandler, Response } from 'express';
import { noStore } from '../../common/no-store';
import { sendStatic, staticDocument, withHeaders, type StaticDocument, type StaticSource } from '../../common/static-document';
import { PUBLIC_DOCUMENT_CORS } from '../clients/browser-cors.middleware';
import type { Config } from '../../config';
import {
  ACR_VALUES,
  ASSERTION_SIGNING_ALGORITHMS,
  DPOP_ALGORITHMS,
  ENDPOINTS,
  CLAIMS_SUPPORTED,
  CLIENT_AUTH_METHODS,
  GRANT_TYPES,
  PKCE_METHODS,
  PROMPTS,
  RESPONSE_MODES,
  RESPONSE_TYPES,
  REQUEST_OBJECT_ALGORITHMS,
  SCOPES,
  SIGNING_ALGORITHMS,
} from '../protocol';
import { oauthPrincipal } from '../tokens/bearer.middleware';
import * as clientsService from '../clients/clients.service';
import { userinfoClaims } from './claims.service';
import type { IdTokens } from './id-tokens.service';
import type { KeyRing } from './signing-keys.service';

/** Everything the server really supports, for both discovery documents; each list from the protocol's vocabulary. */
export function providerMetadata(
  issuer: string,
  settings: { requirePushedRequests: boolean; clientDocuments: boolean },
): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}${ENDPOINTS.authorization}`,
    token_endpoint: `${issuer}${ENDPOINTS.token}`,
    userinfo_endpoint: `${issuer}${ENDPOINTS.userinfo}`,
    jwks_uri: `${issuer}${ENDPOINTS.jwks}`,
    registration_endpoint: `${issuer}${ENDPOINTS.registration}`,
    end_session_endpoint: `${issuer}${ENDPOINTS.endSession}`,
    revocation_endpoint: `${issuer}${ENDPOINTS.revocation}`,
    introspection_endpoint: `${issuer}${ENDPOINTS.introspection}`,
    device_authorization_endpoint: `${issuer}${ENDPOINTS.deviceAuthorization}`,
    pushed_authorization_request_endpoint: `${issuer}${ENDPOINTS.pushedAuthorization}`,
    require_pushed_authorization_requests: settings.requirePushedRequests,
    // draft-ietf-oauth-client-id-metadata-document: an https client_id with a path is its metadata document.
    client_id_metadata_document_supported: settings.clientDocuments,
    scopes_supported: SCOPES,
    response_types_supported: RESPONSE_TYPES,
    response_modes_supported: RESPONSE_MODES,
    grant_types_supported: GRANT_TYPES,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: SIGNING_ALGORITHMS,
    userinfo_signing_alg_values_supported: SIGNING_ALGORITHMS,
    authorization_signing_alg_values_supported: SIGNING_ALGORITHMS,
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    token_endpoint_auth_signing_alg_values_supported: ASSERTION_SIGNING_ALGORITHMS,
    dpop_signing_alg_values_supported: DPOP_ALGORITHMS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_signing_alg_values_supported: ASSERTION_SIGNING_ALGORITHMS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_signing_alg_values_supported: ASSERTION_SIGNING_ALGORITHMS,
    code_challenge_methods_supported: PKCE_METHODS,
    prompt_values_supported: PROMPTS,
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: true,
    acr_values_supported: ACR_VALUES,
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: REQUEST_OBJECT_ALGORITHMS,
    request_uri_parameter_supported: true,
    require_request_uri_registration: true,
    authorization_response_iss_parameter_supported: true,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
  };
}

/**
 * RFC 9728: this server's own APIs as a protected resource (its identifier is the issuer, as RFC 8707
 * has it for them): who issues their tokens, the scopes they take, how a token may be sent.
 */
export function protectedResourceMetadata(issuer: string) {
  return {
    resource: issuer,
    authorization_servers: [issuer],
    scopes_supported: SCOPES,
    // RFC 6750 §2.1 and §2.2; never the query string.
    bearer_methods_supported: ['header', 'body'],
    resource_name: 'This server’s APIs',
    resource_documentation: `${issuer}/docs`,
    dpop_signing_alg_values_supported: DPOP_ALGORITHMS,
    dpop_bound_access_tokens_required: false,
  };
}

/**
 * Discovery, the protected resource's metadata and the JWK Set: the same bytes for everyone, made
 * once (the JWK Set again when the keys are re-read), with their CORS header for any origin, served
 * ahead of the app's other routes.
 */
export function createProviderDocuments(
  config: Config,
  keys: KeyRing,
): { metadata: StaticSource; resource: StaticSource; jwks: StaticSource } {
  const published = withHeaders(PUBLIC_DOCUMENT_CORS);
  const metadata = published(
    staticDocument(
      providerMetadata(config.publicUrl, {
        requirePushedRequests: config.oauth.requirePushedRequests,
        clientDocuments: config.clientDocuments.mode !== 'off',
      }),
    ),
  );
  const resource = publishedResourceMetadata(config.publicUrl);
  return {
    metadata: () => metadata,
    resource: () => resource,
    jwks: async () => published(await keys.jwksDocument()),
  };
}

/** The protected resource's metadata as served, with its CORS header for any origin. */
export const publishedResourceMetadata = (issuer: string): StaticDocument =>
  withHeaders(PUBLIC_DOCUMENT_CORS)(staticDocument(protectedResourceMetadata(issuer)));

/**
 * RFC 9728 §3.1's path-suffixed address, for an issuer with a path: the metadata when the path after
 * the well-known part is the issuer's, 404 for any other.
 */
export function pathSuffixedResourceMetadata(issuer: string): RequestHandler<{ issuerPath: string[] }> {
  const document = publishedResourceMetadata(issuer);
  const issuerPath = new URL(issuer).pathname;
  return (req, res, next) => (`/${req.params.issuerPath.join('/')}` === issuerPath ? sendStatic(req, res, document) : next());
}

export function createOidcController(idTokens: IdTokens, clients: clientsService.ClientRegistry) {
  return {
    /** JSON, or a signed JWT for a client that registered userinfo_signed_response_alg (OIDC Core §5.3.2). */
    async userinfo(_req: Request, res: Response): Promise<void> {
      const { token, person } = oauthPrincipal(res);
      const claims = userinfoClaims(person, token.scope, token.claims);
      const algorithm = (await clients.find(token.clientId))?.metadata?.userinfo_signed_response_alg;
      if (!algorithm) return void noStore(res).json(claims);
      noStore(res)
        .type('application/jwt')
        .send(await idTokens.signUserinfo(claims, token.clientId, algorithm));
    },
  };
}
