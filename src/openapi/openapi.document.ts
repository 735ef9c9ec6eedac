// The OpenAPI 3.1 description of every route, served at GET /openapi.json and rendered at GET /docs.
// Tests check that it lists exactly the app's routes, and validate every response the integration
// tests receive against it.
import { authOpenApi } from '../auth/auth.openapi';
import { catalogueOpenApi } from '../catalogue/catalogue.openapi';
import { healthOpenApi } from '../health/health.openapi';
import { oauthOpenApi } from '../oauth/oauth.openapi';
import { sessionOpenApi } from '../session/session.openapi';
import { socialOpenApi } from '../social/social.openapi';
import { usersOpenApi } from '../users/users.openapi';
import { weatherOpenApi } from '../weather/weather.openapi';
import { json, page, ref, str, type OpenApiFragment, type Schema } from './openapi.kit';

const OAUTH_SCOPES = {
  read: 'Read the account',
  write: 'Change data',
  openid: 'Sign in (ID token)',
  profile: 'Name and picture',
  email: 'Email address',
  offline_access: 'Refresh tokens',
};

const fragments: OpenApiFragment[] = [
  usersOpenApi,
  authOpenApi,
  socialOpenApi,
  sessionOpenApi,
  oauthOpenApi,
  catalogueOpenApi,
  weatherOpenApi,
  healthOpenApi,
];

/** The landing page and this document. */
const operationsPaths = {
  '/': {
    get: {
      tags: ['Operations'],
      summary: 'Landing page: what runs here, with links to sign in, the API reference, the OAuth metadata and health',
      responses: { '200': page('Landing page') },
    },
  },
  '/openapi.json': {
    get: { tags: ['Operations'], summary: 'This document', responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1') } },
  },
  '/docs': { get: { tags: ['Operations'], summary: 'This document, rendered', responses: { '200': page('API reference') } } },
};

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'REST API server',
    version: '1.0.0',
    description:
      'User records and JWT login, an OAuth 2 authorization server, GitHub sign-in, a read-only product catalogue and a weather aggregator. ' +
      'Flows with curl: docs/oauth.md in the repository.',
  },
  servers: [{ url: '/' }],
  tags: [
    { name: 'Users' },
    { name: 'Tokens' },
    { name: 'OAuth 2' },
    { name: 'OpenID Connect' },
    { name: 'Connected applications' },
    { name: 'Device sign-in' },
    { name: 'Demo' },
    { name: 'Browser sign-in' },
    { name: 'Catalogue' },
    { name: 'Weather' },
    { name: 'Operations' },
  ],
  paths: Object.assign({}, ...fragments.map((fragment) => fragment.paths), operationsPaths) as Record<string, Record<string, unknown>>,
  components: {
    securitySchemes: {
      jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /auth' },
      session: { type: 'apiKey', in: 'cookie', name: 'sid', description: 'Browser session from /login' },
      catalogueBasic: { type: 'http', scheme: 'basic', description: "A user's email and password" },
      registrationToken: { type: 'http', scheme: 'bearer', description: 'RFC 7592 registration access token from POST /oauth/register' },
      metricsToken: { type: 'http', scheme: 'bearer', description: 'The METRICS_TOKEN the server was started with' },
      clientBasic: {
        type: 'http',
        scheme: 'basic',
        description: 'client_secret_basic: client_id and client_secret, each form-encoded (RFC 6749 §2.3.1)',
      },
      oauth: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: '/oauth/authorize',
            tokenUrl: '/oauth/token',
            scopes: OAUTH_SCOPES,
          },
          implicit: {
            authorizationUrl: '/oauth/authorize',
            scopes: OAUTH_SCOPES,
          },
          password: {
            tokenUrl: '/oauth/token',
            scopes: OAUTH_SCOPES,
          },
          clientCredentials: { tokenUrl: '/oauth/token', scopes: { read: 'Read', write: 'Write' } },
        },
      },
    },
    schemas: {
      ValidationItem: {
        type: 'object',
        required: ['type', 'msg'],
        properties: { type: str, msg: str, path: str, location: str, value: {} },
      },
      Errors: {
        type: 'object',
        required: ['errors'],
        properties: { errors: { type: 'array', items: { oneOf: [str, ref('ValidationItem')] } } },
        additionalProperties: false,
      },
      Error: { type: 'object', required: ['error'], properties: { error: str }, additionalProperties: false },
      ...(Object.assign({}, ...fragments.map((fragment) => fragment.schemas ?? {})) as Record<string, Schema>),
    },
  },
};
