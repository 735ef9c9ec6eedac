// The OpenAPI 3.1 description of every route, served at GET /openapi.json and rendered at GET /docs.
// Tests check that it lists exactly the app's routes, and validate every response the integration
// tests receive against it.
import { oneOfField, queryParametersOf } from '../common/request-fields';
import { accountOpenApi } from '../account/account.openapi';
import { factorsOpenApi } from '../factors/factors.openapi';
import { authOpenApi } from '../auth/auth.openapi';
import { catalogueOpenApi } from '../catalogue/catalogue.openapi';
import { healthOpenApi } from '../health/health.openapi';
import { oauthOpenApi } from '../oauth/oauth.openapi';
import { resourcesOpenApi } from '../oauth/resources/resources.openapi';
import { agentsOpenApi } from '../admin/agents.openapi';
import { ADMIN_SCOPE, SCOPE_DEFINITIONS, SCOPES } from '../oauth/protocol';
import { sessionOpenApi } from '../session/session.openapi';
import { upstreamOpenApi } from '../upstream/upstream.openapi';
import { rolesOpenApi } from '../oauth/roles/roles.openapi';
import { adminOpenApi } from '../admin/admin.openapi';
import { usersOpenApi } from '../users/users.openapi';
import { weatherOpenApi } from '../weather/weather.openapi';
import { json, page, ref, str, SWAGGER_UI_FILES, type OpenApiFragment, type Schema } from './openapi.kit';

const OAUTH_SCOPES = Object.fromEntries(SCOPES.map((scope) => [scope, SCOPE_DEFINITIONS[scope].consent]));

const fragments: OpenApiFragment[] = [
  usersOpenApi,
  authOpenApi,
  upstreamOpenApi,
  sessionOpenApi,
  accountOpenApi,
  factorsOpenApi,
  oauthOpenApi,
  resourcesOpenApi,
  agentsOpenApi,
  rolesOpenApi,
  adminOpenApi,
  catalogueOpenApi,
  weatherOpenApi,
  healthOpenApi,
];

/**
 * The reference page shows one view of the document at a time: Swagger UI renders about 130 operations
 * of one document and then stops drawing the rest (seen in Chromium with swagger-ui-dist 5.35), so the
 * operators' surfaces (the admin API and the console) are a view of their own. /openapi.json stays whole.
 */
export const DOCS_VIEWS = {
  clients: { title: 'Clients and people', tags: null },
  operators: { title: 'Operators', tags: ['Admin', 'Operator console'] },
} as const;
export type DocsView = keyof typeof DOCS_VIEWS;

/** /openapi.json's and /docs's query: which view (the whole document, or the clients' view on /docs, without one). */
export const VIEW_QUERY = {
  view: oneOfField(
    Object.keys(DOCS_VIEWS) as DocsView[],
    'clients (the default on /docs): the operations of clients and people; operators: the admin API and the console',
  ),
} as const;
const docsViewParameters = queryParametersOf(VIEW_QUERY);

/** The landing page and this document. */
const operationsPaths = {
  '/': {
    get: {
      tags: ['Operations'],
      operationId: 'landingPage',
      security: [],
      summary: 'Landing page: what runs here, with links to sign in, the API reference, the OAuth metadata and health',
      responses: { '200': page('Landing page') },
    },
  },
  '/openapi.json': {
    get: {
      tags: ['Operations'],
      operationId: 'openApiDocument',
      security: [],
      summary:
        'This document; with view, only the operations of clients and people, or of operators (the reference page shows one at a time)',
      parameters: docsViewParameters,
      responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1'), '400': json(ref('Error'), 'An unknown view') },
    },
  },
  '/docs': {
    get: {
      tags: ['Operations'],
      operationId: 'apiReference',
      security: [],
      summary: 'This document rendered by Swagger UI, one view at a time (a plain list of every operation without JavaScript)',
      parameters: docsViewParameters,
      responses: { '200': page('API reference'), '400': page('An unknown view') },
    },
  },
  '/docs/assets/init.js': {
    get: {
      tags: ['Operations'],
      operationId: 'apiReferenceSettings',
      security: [],
      summary: "The API reference's Swagger UI settings",
      responses: { '200': { description: 'Script', content: { 'text/javascript': { schema: str } } } },
    },
  },
  '/docs/assets/docs.css': {
    get: {
      tags: ['Operations'],
      operationId: 'apiReferenceStyle',
      security: [],
      summary: "The API reference's own styles over Swagger UI's: contrast and narrow screens",
      responses: { '200': { description: 'Stylesheet', content: { 'text/css': { schema: str } } } },
    },
  },
  '/docs/assets/{file}': {
    get: {
      tags: ['Operations'],
      operationId: 'apiReferenceAsset',
      security: [],
      summary: "Swagger UI's script and stylesheet, and the Authorize dialog's landing page and its script",
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', enum: [...SWAGGER_UI_FILES] } }],
      responses: {
        '200': {
          description: 'The file',
          content: { 'text/javascript': { schema: str }, 'text/css': { schema: str }, 'text/html': { schema: str } },
        },
        '404': json(ref('Error'), 'No such file'),
      },
    },
  },
};

const examples = Object.assign({}, ...fragments.map((fragment) => fragment.examples ?? {})) as Record<string, unknown>;
/** The error bodies every feature shares, then the features' own schemas. */
const schemas = Object.assign(
  {
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
  },
  ...fragments.map((fragment) => fragment.schemas ?? {}),
) as Record<string, Schema>;
const paths = Object.assign({}, ...fragments.map((fragment) => fragment.paths), operationsPaths) as Record<string, Record<string, unknown>>;

/**
 * Puts each schema's example on the bodies that are exactly that schema: renderers and tools show a
 * body's own example more readily than its schema's.
 */
function withBodyExamples(document: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const bodies = Object.values(document).flatMap((item) =>
    Object.values(item as Record<string, { requestBody?: unknown; responses?: Record<string, unknown> } | undefined>).flatMap(
      (operation) => [operation?.requestBody, ...Object.values(operation?.responses ?? {})],
    ),
  );
  for (const body of bodies) {
    const content = (body as { content?: Record<string, { schema?: Schema; example?: unknown }> } | undefined)?.content ?? {};
    for (const media of Object.values(content)) {
      const name = typeof media.schema?.$ref === 'string' ? media.schema.$ref.replace('#/components/schemas/', '') : undefined;
      if (name !== undefined && name in examples) media.example = examples[name];
    }
  }
  return document;
}
/** Each schema with its example beside it. */
function withSchemaExamples(all: Record<string, Schema>): Record<string, Schema> {
  for (const name of Object.keys(examples)) if (!(name in all)) throw new Error(`an example for ${name}, which is no schema`);
  return Object.fromEntries(
    Object.entries(all).map(([name, schema]) => [name, name in examples ? { ...schema, examples: [examples[name]] } : schema]),
  );
}

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'REST API server',
    version: '1.0.0',
    license: { name: 'UNLICENSED: a private project, all rights reserved' },
    description:
      'User records and JWT login, an OAuth 2 authorization server, GitHub sign-in, a read-only product catalogue and a weather aggregator. ' +
      'Flows with curl: docs/oauth.md in the repository.',
  },
  servers: [{ url: '/' }],
  tags: [
    {
      name: 'Users',
      description:
        "User records (seed 000). Without USERS_API_AUTH=jwt these need no credentials, as the seed has it; with it, the caller's own access token from POST /auth.",
    },
    {
      name: 'Tokens',
      description: 'JSON web tokens for the users API: POST /auth with email and password, then rotate with the refresh token.',
    },
    {
      name: 'OAuth 2',
      description:
        'The authorization server: authorization and consent, the two token endpoints (variant A at /v1, variant B), revocation, introspection and client registration. Clients authenticate with HTTP Basic (client_secret_basic) or client_id and client_secret among the form parameters (client_secret_post); public clients send client_id alone and must use PKCE.',
    },
    {
      name: 'OpenID Connect',
      description: 'Discovery, the signing keys, userinfo, dynamic registration (RFC 7591 and 7592) and RP-initiated logout.',
    },
    {
      name: 'Connected applications',
      description: 'The applications a person has authorized, and revoking them, from /home or with an access token from POST /auth.',
    },
    { name: 'Device sign-in', description: 'RFC 8628: a device shows a code, the person types it at /device and approves.' },
    {
      name: 'Demo',
      description:
        "Development only: a page that plays a client's redirect URI, for trying the flows in a browser (npm run seed -- --demo).",
    },
    { name: 'Browser sign-in', description: 'The sign-in page, sign-out, the signed-in home page and sign-in through GitHub.' },
    {
      name: 'Catalogue',
      description:
        "The read-only product catalogue (seed 001), for any user's email and password over HTTP Basic, or an access token with the read scope.",
    },
    {
      name: 'Admin',
      description: 'The operator’s API, for access tokens with the admin scope (client_credentials of a client the operator allowed).',
    },
    { name: 'Weather', description: 'The mean temperature of a city over two providers (seed 001), also served alone on WEATHER_PORT.' },
    { name: 'Operations', description: 'Probes, metrics, this document and the landing page.' },
  ],
  paths: withBodyExamples(paths),
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
        description:
          "In this page's Authorize dialog, the authorization code flow (with PKCE) and client credentials work with a client " +
          'that registered /docs/assets/oauth2-redirect.html as a redirect URI; the demo client (npm run seed -- --demo) has.',
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
          clientCredentials: {
            tokenUrl: '/oauth/token',
            scopes: { read: 'Read', write: 'Write', [ADMIN_SCOPE]: 'The admin API (clients the operator allowed)' },
          },
        },
      },
    },
    schemas: withSchemaExamples(schemas),
  },
};

const OPERATOR_TAGS: readonly string[] = DOCS_VIEWS.operators.tags;
const HTTP_METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** The document with only the view's operations (the operators' tags, or every other one); components whole. */
export function documentView(view: DocsView): typeof openApiDocument {
  const inView = (operation: { tags?: string[] }) => OPERATOR_TAGS.includes(operation.tags?.[0] ?? '') === (view === 'operators');
  const all: Record<string, Record<string, unknown>> = openApiDocument.paths;
  const paths: [string, Record<string, unknown>][] = Object.entries(all).flatMap(([path, item]) => {
    const kept = Object.entries(item).filter(([key, value]) => !HTTP_METHODS.includes(key) || inView(value as { tags?: string[] }));
    return kept.some(([key]) => HTTP_METHODS.includes(key)) ? [[path, Object.fromEntries(kept)] as [string, Record<string, unknown>]] : [];
  });
  return { ...openApiDocument, paths: Object.fromEntries(paths) };
}
