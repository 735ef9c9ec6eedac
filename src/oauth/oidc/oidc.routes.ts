// OpenID Connect provider endpoints (beyond the seeds): discovery, the JWK Set, userinfo and
// RP-initiated logout.
import { pageRefusals } from '../../web/layout';
import { Router, type RequestHandler } from 'express';
import type { Config } from '../../config';
import type { SessionEndedHook } from '../../session/session.middleware';
import type { Csrf } from '../../web/csrf';
import { formBody, pageFormBody } from '../../web/form-body';
import { createEndSessionController } from './end-session.controller';
import type { createBearerGuard } from '../tokens/bearer.middleware';
import type { IdTokens } from './id-tokens.service';
import { createOidcController, createProviderDocuments, pathSuffixedResourceMetadata } from './oidc.controller';
import type { KeyRing } from './signing-keys.service';
import type { StaticSource } from '../../common/static-document';
import { DISCOVERY_PATHS, ENDPOINTS, PROTECTED_RESOURCE_PATH } from '../protocol';
import type { ClientRegistry } from '../clients/clients.service';

/** Discovery, the protected resource's metadata (RFC 9728) and the JWK Set by path, for the app's static routes (common/static-document.ts). */
export function providerDocumentRoutes(config: Config, keys: KeyRing): [string, StaticSource][] {
  const documents = createProviderDocuments(config, keys);
  return [
    ...DISCOVERY_PATHS.map((path): [string, StaticSource] => [path, documents.metadata]),
    [PROTECTED_RESOURCE_PATH, documents.resource],
    [ENDPOINTS.jwks, documents.jwks],
  ];
}

export function createOidcRouter(
  idTokens: IdTokens,
  sessions: RequestHandler,
  csrf: Csrf,
  requireOAuthToken: ReturnType<typeof createBearerGuard>,
  sessionEnded: SessionEndedHook,
  clients: ClientRegistry,
  issuer: string,
): Router {
  const oidc = createOidcController(idTokens, clients);
  const endSession = createEndSessionController(idTokens, csrf, sessionEnded, clients);
  const router = Router();
  router.get(`${PROTECTED_RESOURCE_PATH}/*issuerPath`, pathSuffixedResourceMetadata(issuer));
  router.get(ENDPOINTS.endSession, sessions, endSession.endSession, pageRefusals);
  router.post(ENDPOINTS.endSession, sessions, pageFormBody, csrf.requireWhenSignedIn, endSession.endSession, pageRefusals);
  // RFC 6750 §2.2: on POST the token may come in a form body instead of the header.
  const userinfoToken = requireOAuthToken({
    scope: 'openid',
    invalidTokenError: 'invalid_token',
    clientToken: 'invalid',
    missingDescription: 'Send the access token as Authorization: Bearer <token>',
  });
  router.get(ENDPOINTS.userinfo, userinfoToken, oidc.userinfo);
  router.post(ENDPOINTS.userinfo, formBody, userinfoToken, oidc.userinfo);
  return router;
}
