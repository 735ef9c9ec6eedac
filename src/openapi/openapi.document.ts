// The OpenAPI 3.1 description of every route, served at GET /openapi.json and rendered at GET /docs.
// Tests check that it lists exactly the app's routes, and validate every response the integration
// tests receive against it.

type Schema = Record<string, unknown>;
type Responses = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string) => ({ description, content: { 'application/json': { schema } } });
const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
const page = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const empty = (description: string) => ({ description });
const redirect = (description: string) => ({
  description,
  headers: { Location: { schema: { type: 'string' }, description: 'Where the browser goes next' } },
});

const str = { type: 'string' };
const int = { type: 'integer' };

/** Responses any JSON route may give besides its own. */
const jsonFaults: Responses = {
  '413': json(ref('Errors'), 'Body over 100 kB'),
  '431': empty('Request line and headers over 16 kB (refused by Node before any route)'),
  '415': json(ref('Errors'), 'Unsupported body encoding or charset'),
  '500': json(ref('Error'), 'Unexpected failure'),
  '503': json(ref('Error'), 'Database unavailable; retry after Retry-After seconds'),
};
const pageFaults: Responses = { '503': json(ref('Error'), 'Database unavailable') };
/** A path whose percent-encoding does not decode never reaches the route. */
const malformedPath = json(ref('Error'), 'Malformed percent-encoding in the path');

const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: str });
const jsonBody = (schema: Schema) => ({ required: true, content: { 'application/json': { schema } } });
const formBody = (schema: Schema) => ({ required: true, content: { 'application/x-www-form-urlencoded': { schema } } });

/** USERS_API_AUTH=jwt: the access token from POST /auth; the open mode (the default) needs none. */
const usersSecurity = [{}, { jwt: [] }];
const usersAuthErrors: Responses = {
  '401': empty('USERS_API_AUTH=jwt: Authorization header absent or not Bearer'),
  '403': empty("USERS_API_AUTH=jwt: bad access token, or another user's record without the admin flag (8)"),
};

const userWriteResponses = (done: string): Responses => ({
  '204': empty(done),
  '400': json({ oneOf: [ref('Errors'), ref('Error')] }, 'Validation failed, Invalid email, or (USERS_API_AUTH=jwt) User cannot change permission flags'),
  '404': json(ref('Error'), 'User <userId> not found (checked before the body)'),
  ...usersAuthErrors,
  ...jsonFaults,
});

const userFields = {
  email: { type: 'string', format: 'email', maxLength: 254 },
  password: { type: 'string', minLength: 5, maxLength: 1024 },
  firstName: { type: 'string', maxLength: 100 },
  lastName: { type: 'string', maxLength: 100 },
  permissionFlags: { type: 'integer', minimum: 0, maximum: 2147483647 },
};

const basicAuth = [{ catalogueBasic: [] }];
const jwtAuth = [{ jwt: [] }];

const catalogueErrors: Responses = {
  '401': json(ref('CatalogueError'), 'Missing or wrong credentials (with a Basic challenge)'),
  '429': json(ref('CatalogueError'), 'Too many failed sign-ins for this account from here; see Retry-After'),
  '405': json(ref('CatalogueError'), 'The catalogue is read-only'),
  ...jsonFaults,
};

const oauthClientErrors: Responses = {
  ...jsonFaults,
  '413': json(ref('OAuthError'), 'invalid_request: body over 100 kB'),
  '415': json(ref('OAuthError'), 'invalid_request: unsupported body encoding or charset'),
  '400': json(ref('OAuthError'), 'invalid_request (a malformed body too), invalid_grant, unsupported_grant_type, invalid_scope or unauthorized_client'),
  '401': json(ref('OAuthError'), 'invalid_client'),
  '503': json(ref('OAuthError'), 'temporarily_unavailable: the database cannot be reached; see Retry-After'),
};
const oauthTokenErrors: Responses = { ...oauthClientErrors, '429': json(ref('OAuthError'), 'too_many_requests; see Retry-After') };

/** An OAuth parameter: sent once (RFC 6749 §3.1), at most 2048 UTF-16 code units (1000 characters always fit). */
const param = { type: 'string', maxLength: 1000 };
/** OAuth endpoints ignore parameters they do not know, but refuse a repeated or non-string one. */
const oauthForm = (properties: Record<string, Schema>, required: string[] = []) => ({ type: 'object', required, properties, additionalProperties: param });

const tokenParameters = (grants: string[]) => oauthForm(
  {
    grant_type: { type: 'string', enum: grants },
    client_id: param,
    client_secret: param,
    code: param,
    redirect_uri: param,
    code_verifier: param,
    refresh_token: param,
    username: param,
    password: param,
    scope: { type: 'string', enum: ['read', 'write', 'read write'] },
  },
  ['grant_type'],
);

const variantAParameters = tokenParameters(['authorization_code', 'refresh_token']);
const variantBParameters = tokenParameters(['authorization_code', 'refresh_token', 'password', 'client_credentials']);

const authorizeQuery = [
  { name: 'response_type', schema: { type: 'string', enum: ['code', 'token'] } },
  { name: 'client_id', schema: str },
  { name: 'redirect_uri', schema: str },
  { name: 'scope', schema: { type: 'string', enum: ['read', 'write', 'read write'] } },
  { name: 'state', schema: { type: 'string', pattern: '^[\\x20-\\x7e]+$', maxLength: 1024 } },
  { name: 'code_challenge', schema: { type: 'string', pattern: '^[A-Za-z0-9._~-]{43,128}$' } },
  { name: 'code_challenge_method', schema: { type: 'string', enum: ['S256', 'plain'] } },
].map((parameter) => ({ ...parameter, in: 'query', required: false }));

/** The browser session from /login; without one the browser routes redirect to /login. */
const sessionAuth = [{ session: [] }];
/** client_secret_basic, or client_id and client_secret among the parameters (client_secret_post). */
const clientAuth = [{ clientBasic: [] }, {}];

const authorizeOperations = {
  get: {
    tags: ['OAuth 2'],
    summary: 'Authorization request: consent page, or a redirect to /login',
    security: sessionAuth,
    parameters: authorizeQuery,
    responses: {
      '200': page('Consent page naming the client, its website and the scopes, with Approve and Deny'),
      '302': redirect('To /login when not signed in; to redirect_uri with an error for a bad request'),
      '400': page('Unknown client, or a redirect_uri other than the registered one (no redirect)'),
      ...pageFaults,
    },
  },
  post: {
    tags: ['OAuth 2'],
    summary: 'The consent decision (form posted by the consent page)',
    security: sessionAuth,
    requestBody: formBody(
      oauthForm(
        {
          _csrf: param,
          decision: { type: 'string', enum: ['approve', 'deny'] },
          client_id: param,
          redirect_uri: param,
          response_type: { type: 'string', enum: ['code', 'token'] },
          scope: { type: 'string', enum: ['read', 'write', 'read write'] },
          state: { type: 'string', pattern: '^[\\x20-\\x7e]+$', maxLength: 1024 },
        },
        ['_csrf', 'decision', 'client_id', 'response_type'],
      ),
    ),
    responses: {
      '302': redirect('To redirect_uri with code (query) or access_token and token (fragment), or error=access_denied'),
      '303': redirect('To /login when not signed in'),
      '400': page('Unknown client, redirect_uri mismatch, or no decision'),
      '403': page('Missing or wrong CSRF token'),
      '413': page('Body over 100 kB'),
      ...pageFaults,
    },
  },
};

const clientRegistration = {
  type: 'object',
  required: ['name', 'website', 'redirect_uri'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    website: { type: 'string', format: 'uri' },
    redirect_uri: { type: 'string', format: 'uri', description: 'Absolute http(s) URL without a fragment' },
    grants: { type: 'array', items: ref('Grant'), minItems: 1 },
  },
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
    { name: 'Browser sign-in' },
    { name: 'Catalogue' },
    { name: 'Weather' },
    { name: 'Operations' },
  ],
  paths: {
    '/users': {
      get: {
        tags: ['Users'],
        summary: 'The first 100 users in creation order, or a page of them (USERS_API_AUTH=jwt: admins only)',
        security: usersSecurity,
        parameters: [
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
          { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: 1000000 } },
        ],
        responses: {
          '200': json({ type: 'array', items: ref('User'), maxItems: 100 }, 'Users'),
          '400': json(ref('Errors'), 'Invalid limit or page'),
          ...usersAuthErrors,
          ...jsonFaults,
        },
      },
      post: {
        tags: ['Users'],
        summary: 'Create a user (permissionFlags is always 1)',
        requestBody: jsonBody(ref('UserCreate')),
        responses: {
          '201': json({ type: 'object', required: ['id'], properties: { id: str }, additionalProperties: false }, 'Created'),
          '400': json({ oneOf: [ref('Errors'), ref('Error')] }, 'Validation failed, or User email already exists'),
          ...jsonFaults,
        },
      },
    },
    '/users/{userId}': {
      parameters: [pathParam('userId', 'The user id')],
      get: {
        tags: ['Users'],
        summary: 'Read a user',
        security: usersSecurity,
        responses: { '200': json(ref('User'), 'The user'), '400': malformedPath, '404': json(ref('Error'), 'User <userId> not found'), ...usersAuthErrors, ...jsonFaults },
      },
      put: {
        tags: ['Users'],
        summary: 'Replace a user (the email must stay the same); a new password ends their tokens and sessions',
        security: usersSecurity,
        requestBody: jsonBody(ref('UserPut')),
        responses: userWriteResponses('Replaced'),
      },
      patch: {
        tags: ['Users'],
        summary: 'Update some fields of a user; a new password ends their tokens and sessions',
        security: usersSecurity,
        requestBody: jsonBody(ref('UserPatch')),
        responses: userWriteResponses('Updated'),
      },
      delete: {
        tags: ['Users'],
        summary: 'Delete a user and end every token, grant and session issued to them',
        security: usersSecurity,
        responses: { '204': empty('Deleted'), '400': malformedPath, '404': json(ref('Error'), 'User <userId> not found'), ...usersAuthErrors, ...jsonFaults },
      },
    },
    '/auth': {
      post: {
        tags: ['Tokens'],
        summary: 'Log in with email and password',
        requestBody: jsonBody({ type: 'object', required: ['email', 'password'], properties: { email: { type: 'string', format: 'email' }, password: str } }),
        responses: {
          '201': json(ref('TokenPair'), 'An access token (HS256 JWT, 36000 s) and a single-use refresh token'),
          '400': json(ref('Errors'), 'Validation failed, or Invalid email and/or password'),
          '429': json(ref('Errors'), 'Too many attempts; see Retry-After'),
          ...jsonFaults,
          '500': empty('Internal failure while issuing tokens'),
        },
      },
    },
    '/auth/refresh-token': {
      post: {
        tags: ['Tokens'],
        summary: 'A new token pair for a valid access token and its refresh token',
        security: jwtAuth,
        requestBody: jsonBody({ type: 'object', required: ['refreshToken'], properties: { refreshToken: str } }),
        responses: {
          '201': json(ref('TokenPair'), 'A new pair'),
          '400': json(ref('Errors'), 'Missing required field: refreshToken, or Invalid refresh token'),
          '401': empty('Authorization header absent or not Bearer'),
          '403': empty('Access token invalid, expired or malformed'),
          '429': json(ref('Errors'), 'Too many requests; see Retry-After'),
          ...jsonFaults,
          '500': empty('Internal failure while issuing tokens'),
        },
      },
    },
    '/auth/{provider}': {
      parameters: [pathParam('provider', 'An identity provider, such as github')],
      get: {
        tags: ['Browser sign-in'],
        summary: 'Sign in through an identity provider (redirect to it, or handle its callback)',
        parameters: [
          { name: 'code', in: 'query', required: false, schema: str },
          { name: 'state', in: 'query', required: false, schema: str },
          { name: 'error', in: 'query', required: false, schema: str },
        ],
        responses: {
          '302': redirect('To the provider, or to /home once signed in (30-day cookie)'),
          '400': { description: 'invalid_state: the callback was replayed or did not start here (page), or a malformed path (JSON)', content: { 'text/html': { schema: str }, 'application/json': { schema: ref('Error') } } },
          '403': page('The user denied access at the provider'),
          '404': page('Unknown provider'),
          '502': page('The provider failed or answered unreadably'),
          '503': { description: 'The provider is not configured (page), or the database is unavailable (JSON)', content: { 'text/html': { schema: str }, 'application/json': { schema: ref('Error') } } },
          '504': page('The provider did not answer in time'),
        },
      },
    },
    '/login': {
      get: {
        tags: ['Browser sign-in'],
        summary: 'Sign-in page',
        parameters: [{ name: 'return_to', in: 'query', required: false, schema: str }],
        responses: { '200': page('Email and password form with remember-me and a GitHub link'), '302': redirect('Already signed in'), ...pageFaults },
      },
      post: {
        tags: ['Browser sign-in'],
        summary: 'Sign in',
        requestBody: formBody({ type: 'object', properties: { _csrf: str, email: str, password: str, remember: str, return_to: str } }),
        responses: {
          '303': redirect('Signed in: to return_to (a local path) or /home'),
          '401': page('Wrong email or password'),
          '403': page('Missing or wrong CSRF token'),
          '413': page('Body over 100 kB'),
          '429': page('Too many attempts; see Retry-After'),
          ...pageFaults,
        },
      },
    },
    '/logout': {
      post: {
        tags: ['Browser sign-in'],
        summary: 'Sign out',
        requestBody: formBody({ type: 'object', properties: { _csrf: str } }),
        responses: { '303': redirect('To /login'), '403': page('Missing or wrong CSRF token'), '413': page('Body over 100 kB'), ...pageFaults },
      },
    },
    '/home': {
      get: {
        tags: ['Browser sign-in'],
        summary: 'Page for the signed-in user',
        security: sessionAuth,
        responses: { '200': page('Who is signed in, and a sign-out button'), '302': redirect('To /login when not signed in'), ...pageFaults },
      },
    },
    '/v1/oauth/authorize': authorizeOperations,
    '/authorize': authorizeOperations,
    '/oauth/authorize': authorizeOperations,
    '/v1/oauth/token': {
      post: {
        tags: ['OAuth 2'],
        summary: 'Token endpoint, variant A: authorization_code and refresh_token; parameters in the query string or a form',
        security: clientAuth,
        parameters: Object.entries(variantAParameters.properties).map(([name, schema]) => ({ name, in: 'query', required: false, schema })),
        requestBody: { required: false, content: { 'application/x-www-form-urlencoded': { schema: variantAParameters } } },
        responses: { '200': json(ref('TokenResponseA'), 'Tokens'), ...oauthTokenErrors },
      },
    },
    '/oauth/token': {
      post: {
        tags: ['OAuth 2'],
        summary: 'Token endpoint, variant B: every grant the client is allowed; form or JSON body; client auth by parameters or HTTP Basic',
        security: clientAuth,
        requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: variantBParameters }, 'application/json': { schema: variantBParameters } } },
        responses: { '200': json(ref('TokenResponseB'), 'Tokens (no refresh_token for client_credentials)'), ...oauthTokenErrors },
      },
    },
    '/oauth/revoke': {
      post: {
        tags: ['OAuth 2'],
        summary: 'RFC 7009 revocation of the calling client\'s token',
        security: clientAuth,
        requestBody: formBody(oauthForm({ token: param, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] }, client_id: param, client_secret: param })),
        responses: { ...oauthClientErrors, '200': empty('Revoked, or unknown (the same answer)') },
      },
    },
    '/oauth/introspect': {
      post: {
        tags: ['OAuth 2'],
        summary: 'RFC 7662 introspection of the calling client\'s token',
        security: clientAuth,
        requestBody: formBody(oauthForm({ token: param, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] }, client_id: param, client_secret: param })),
        responses: { ...oauthClientErrors, '200': json(ref('Introspection'), 'Token state') },
      },
    },
    '/oauth/clients': {
      get: {
        tags: ['OAuth 2'],
        summary: "The caller's registered clients, without secrets",
        security: [{ jwt: [] }, { session: [] }],
        responses: { '200': json({ type: 'array', items: ref('Client') }, 'Clients'), '401': empty('No credentials'), '403': empty('Bad access token'), ...jsonFaults },
      },
      post: {
        tags: ['OAuth 2'],
        summary: 'Register a client; its secret is shown once',
        security: [{ jwt: [] }, { session: [] }],
        requestBody: jsonBody(clientRegistration),
        responses: {
          '201': json(ref('ClientWithSecret'), 'Registered'),
          '400': json(ref('Errors'), 'Validation failed'),
          '401': empty('No credentials'),
          '403': empty('Bad access token'),
          ...jsonFaults,
        },
      },
    },
    '/oauth/clients/{clientId}': {
      parameters: [pathParam('clientId', 'The client_id')],
      delete: {
        tags: ['OAuth 2'],
        summary: 'Delete a client and revoke everything issued to it',
        security: [{ jwt: [] }, { session: [] }],
        responses: { '204': empty('Deleted'), '400': malformedPath, '401': empty('No credentials'), '403': empty('Bad access token'), '404': json(ref('Error'), 'Client <clientId> not found'), ...jsonFaults },
      },
    },
    '/.well-known/oauth-authorization-server': {
      get: { tags: ['OAuth 2'], summary: 'RFC 8414 metadata', responses: { '200': json(ref('Metadata'), 'Metadata') } },
    },
    '/api/user': {
      get: {
        tags: ['OAuth 2'],
        summary: 'The user an OAuth access token acts for',
        security: [{ oauth: ['read'] }],
        responses: {
          '200': json(ref('User'), 'The user'),
          '401': json({ oneOf: [ref('OAuthError'), ref('BearerChallenge')] }, 'No bearer token (challenge only, no error code), or a wrong, expired or revoked one (invalid_request)'),
          '403': json(ref('OAuthError'), 'insufficient_scope, or a client_credentials token'),
          ...jsonFaults,
        },
      },
    },
    '/api/v1/products': { get: { tags: ['Catalogue'], summary: 'Every product', security: basicAuth, responses: { '200': json(ref('ProductList'), 'Products'), ...catalogueErrors } } },
    '/api/v1/products/{id}': {
      parameters: [pathParam('id', 'Product id')],
      get: { tags: ['Catalogue'], summary: 'One product', security: basicAuth, responses: { '200': json(ref('ProductOne'), 'Product'), '400': malformedPath, '404': json(ref('CatalogueError'), 'Product <id> not found'), ...catalogueErrors } },
    },
    '/api/v1/categories': { get: { tags: ['Catalogue'], summary: 'Every category (under the key `user`)', security: basicAuth, responses: { '200': json(ref('CategoryList'), 'Categories'), ...catalogueErrors } } },
    '/api/v1/categories/{id}': {
      parameters: [pathParam('id', 'Category id')],
      get: { tags: ['Catalogue'], summary: 'One category (under the key `user`)', security: basicAuth, responses: { '200': json(ref('CategoryOne'), 'Category'), '400': malformedPath, '404': json(ref('CatalogueError'), 'Category <id> not found'), ...catalogueErrors } },
    },
    '/hello': { get: { tags: ['Weather'], summary: 'Says hello!', responses: { '200': text('hello!') } } },
    '/weather/{city}': {
      parameters: [pathParam('city', 'City name, 1 to 100 characters')],
      get: {
        tags: ['Weather'],
        summary: 'Mean temperature in kelvin over two providers, queried at once',
        responses: {
          '200': json(ref('Weather'), 'Weather'),
          '400': { description: 'City name too long (text), or a malformed path (JSON)', content: { 'text/plain': { schema: str }, 'application/json': { schema: ref('Error') } } },
          '500': text('A provider failed: names the provider and the cause, never the key'),
        },
      },
    },
    '/': { get: { tags: ['Operations'], summary: 'Landing page: what runs here, with links to sign in, the API reference, the OAuth metadata and health', responses: { '200': page('Landing page') } } },
    '/healthz': { get: { tags: ['Operations'], summary: 'The process is up', responses: { '200': json(ref('Health'), 'Up') } } },
    '/readyz': { get: { tags: ['Operations'], summary: 'The database answers', responses: { '200': json(ref('Health'), 'Ready'), '503': json(ref('Health'), 'Database unavailable') } } },
    '/openapi.json': { get: { tags: ['Operations'], summary: 'This document', responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1') } } },
    '/docs': { get: { tags: ['Operations'], summary: 'This document, rendered', responses: { '200': page('API reference') } } },
  },
  components: {
    securitySchemes: {
      jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /auth' },
      session: { type: 'apiKey', in: 'cookie', name: 'sid', description: 'Browser session from /login' },
      catalogueBasic: { type: 'http', scheme: 'basic', description: "A user's email and password" },
      clientBasic: { type: 'http', scheme: 'basic', description: 'client_secret_basic: client_id and client_secret, each form-encoded (RFC 6749 §2.3.1)' },
      oauth: {
        type: 'oauth2',
        flows: {
          authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', scopes: { read: 'Read the account', write: 'Change data' } },
          implicit: { authorizationUrl: '/oauth/authorize', scopes: { read: 'Read the account', write: 'Change data' } },
          password: { tokenUrl: '/oauth/token', scopes: { read: 'Read the account', write: 'Change data' } },
          clientCredentials: { tokenUrl: '/oauth/token', scopes: { read: 'Read', write: 'Write' } },
        },
      },
    },
    schemas: {
      User: {
        type: 'object',
        required: ['_id', 'permissionFlags', '__v'],
        properties: { _id: str, email: str, firstName: str, lastName: str, permissionFlags: int, __v: int },
        additionalProperties: false,
      },
      UserCreate: {
        type: 'object',
        required: ['email', 'password'],
        properties: { email: userFields.email, password: userFields.password, firstName: userFields.firstName, lastName: userFields.lastName },
      },
      UserPut: { type: 'object', required: ['email', 'password', 'firstName', 'lastName', 'permissionFlags'], properties: userFields },
      UserPatch: { type: 'object', properties: userFields },
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
      TokenPair: { type: 'object', required: ['accessToken', 'refreshToken'], properties: { accessToken: str, refreshToken: str }, additionalProperties: false },
      Grant: { type: 'string', enum: ['authorization_code', 'implicit', 'refresh_token', 'password', 'client_credentials'] },
      Client: {
        type: 'object',
        required: ['client_id', 'name', 'website', 'redirect_uri', 'grants'],
        properties: { client_id: str, name: str, website: str, redirect_uri: str, grants: { type: 'array', items: ref('Grant') } },
        additionalProperties: false,
      },
      ClientWithSecret: {
        type: 'object',
        required: ['client_id', 'client_secret', 'name', 'website', 'redirect_uri', 'grants'],
        properties: { client_id: str, client_secret: str, name: str, website: str, redirect_uri: str, grants: { type: 'array', items: ref('Grant') } },
        additionalProperties: false,
      },
      BearerChallenge: { type: 'object', required: ['error_description'], properties: { error_description: str }, additionalProperties: false },
      OAuthError: { type: 'object', required: ['error'], properties: { error: str, error_description: str }, additionalProperties: false },
      TokenResponseA: {
        type: 'object',
        required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'uid', 'info'],
        properties: {
          access_token: str,
          token_type: { const: 'bearer' },
          expires_in: int,
          refresh_token: str,
          scope: str,
          uid: int,
          info: { type: 'object', required: ['name'], properties: { name: str, email: str }, additionalProperties: false },
        },
        additionalProperties: false,
      },
      TokenResponseB: {
        type: 'object',
        required: ['token_type', 'expires_in', 'access_token'],
        properties: { token_type: { const: 'Bearer' }, expires_in: int, access_token: str, refresh_token: str },
        additionalProperties: false,
      },
      Introspection: {
        type: 'object',
        required: ['active'],
        properties: { active: { type: 'boolean' }, scope: str, client_id: str, token_type: str, exp: int, iat: int, sub: str },
        additionalProperties: false,
      },
      Metadata: { type: 'object', required: ['issuer', 'authorization_endpoint', 'token_endpoint'], properties: { issuer: str, authorization_endpoint: str, token_endpoint: str } },
      Product: { type: 'object', required: ['id', 'name', 'price'], properties: { id: str, name: str, price: { type: 'string', pattern: '^-?\\d+\\.\\d{2}$' } }, additionalProperties: false },
      Category: { type: 'object', required: ['id', 'name'], properties: { id: str, name: str }, additionalProperties: false },
      ProductList: envelope('products', { type: 'array', items: ref('Product') }),
      ProductOne: envelope('products', ref('Product')),
      CategoryList: envelope('user', { type: 'array', items: ref('Category') }),
      CategoryOne: envelope('user', ref('Category')),
      CatalogueError: {
        type: 'object',
        required: ['error', 'message', 'status_code'],
        properties: { error: { const: true }, message: str, status_code: int },
        additionalProperties: false,
      },
      Weather: { type: 'object', required: ['city', 'temp', 'took'], properties: { city: str, temp: { type: 'number' }, took: str }, additionalProperties: false },
      Health: { type: 'object', required: ['status'], properties: { status: str }, additionalProperties: false },
    },
  },
} as const;

function envelope(key: string, payload: Schema): Schema {
  return {
    type: 'object',
    required: ['error', key, 'status_code'],
    properties: { error: { const: false }, [key]: payload, status_code: { const: 200 } },
    additionalProperties: false,
  };
}
