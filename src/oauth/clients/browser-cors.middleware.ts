// CORS for the provider's endpoints that browser apps call (docs/oauth.md, Browser apps): discovery
// and the JWK Set for any origin; the token, userinfo, revocation, device and PAR endpoints for the web
// origins of registered public clients (client-origins.service.ts) and CORS_ORIGINS. Never with
// credentials (none of these endpoints reads a cookie) and never a wildcard for the client endpoints.
import cors from 'cors';
import type { RequestHandler } from 'express';
import type { Config } from '../../config';
import { DISCOVERY_PATHS, ENDPOINTS, PROTECTED_RESOURCE_PATH } from '../protocol';
import type { ClientOriginStore } from './clients.store';

const PUBLIC_DOCUMENTS = new Set([...DISCOVERY_PATHS, PROTECTED_RESOURCE_PATH, ENDPOINTS.jwks]);
const CLIENT_ENDPOINTS = new Set<string>([
  ENDPOINTS.token,
  ENDPOINTS.userinfo,
  ENDPOINTS.revocation,
  ENDPOINTS.deviceAuthorization,
  ENDPOINTS.pushedAuthorization,
]);
const MAX_AGE_SECONDS = 600;

/** On discovery's and the JWK Set's own responses, made with them (oidc.controller.ts); their preflight is answered here. */
export const PUBLIC_DOCUMENT_CORS = { 'Access-Control-Allow-Origin': '*' } as const;
const anyOriginPreflight = cors({ origin: PUBLIC_DOCUMENT_CORS['Access-Control-Allow-Origin'], methods: ['GET'], maxAge: MAX_AGE_SECONDS });
const clientCors = (origin: string) =>
  cors({
    origin,
    credentials: false,
    methods: ['GET', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type', 'DPoP'],
    exposedHeaders: ['WWW-Authenticate', 'Retry-After', 'X-Request-Id', 'DPoP-Nonce'],
    maxAge: MAX_AGE_SECONDS,
  });

export interface BrowserClientCors {
  /** Whether the path is one of these endpoints (the app's general CORS leaves them alone). */
  handles(path: string): boolean;
  middleware: RequestHandler;
}

export function createBrowserClientCors(config: Config, origins: ClientOriginStore): BrowserClientCors {
  const configured = new Set(config.corsOrigins);
  const handles = (path: string) => PUBLIC_DOCUMENTS.has(path) || CLIENT_ENDPOINTS.has(path);
  return {
    handles,
    middleware: (req, res, next) => {
      if (PUBLIC_DOCUMENTS.has(req.path)) return req.method === 'OPTIONS' ? anyOriginPreflight(req, res, next) : next();
      const origin = req.headers.origin;
      if (!CLIENT_ENDPOINTS.has(req.path) || !origin) return next();
      // Responses differ by Origin, so caches must key on it, allowed or not.
      res.vary('Origin');
      if (configured.has(origin)) return clientCors(origin)(req, res, next);
      if (origin === 'null') return next();
      origins.isPublicClientOrigin(origin).then((allowed) => (allowed ? clientCors(origin)(req, res, next) : next()), next);
    },
  };
}
