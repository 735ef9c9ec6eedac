// The OAuth 2 authorization server of seed 001 and its OpenID Connect provider.
import { DECISION_ID } from '../sign-in/journey.types';
import { RULES_MARK, withRulesFrom } from '../common/validation';
import { bodySchemaOf, queryParametersOf } from '../common/request-fields';
import { CALLBACK_EXCHANGE_FORM, CALLBACK_QUERY } from './demo/callback-debug.fields';
import { REVOKE_FORM } from '../web/applications';
import { VERIFICATION_QUERY } from './device/device.fields';
import {
  bodyOf,
  conditional,
  notModified,
  empty,
  formRequest,
  int,
  json,
  jsonFaults,
  jsonRequest,
  jwtAuth,
  malformedPath,
  type OpenApiFragment,
  page,
  pageFaults,
  pathParam,
  queryOf,
  redirect,
  ref,
  type Responses,
  type Schema,
  sessionAuth,
  str,
} from '../openapi/openapi.kit';
import {
  APPLICATION_TYPES,
  CLIENT_ASSERTION_TYPE,
  TOKEN_TYPE,
  GRANT_TYPES,
  LIMITS,
  PERSON_CLAIMS,
  PKCE_METHODS,
  PKCE_VALUE,
  PROMPTS,
  PUBLIC_CLIENT_GRANTS,
  PROTECTED_RESOURCE_PATH,
  PUSHED_REQUEST_URI_PREFIX,
  DPOP_TOKEN_TYPE,
  RESPONSE_MODES,
  RESPONSE_TYPES,
  SCOPE_LIST_PATTERN,
  SCOPES,
  TOKEN_GRANT_TYPES,
  V1_TOKEN_GRANT_TYPES,
  maxLengthOf,
  MAX_TYPED_USER_CODE_LENGTH,
} from './protocol';
import { CLAIMS_SCHEMA } from '../users/users.types';
import { listClients, registerClient } from './clients/clients.validation';
import { PAGE_METADATA, SIGNING_METADATA } from './clients/registration.service';
import { CLIENT_METADATA, JWKS_SCHEMA } from './clients/client-metadata';
import { listGrants } from './grants/grants.validation';

const oauthClientErrors: Responses = {
  ...jsonFaults,
  '413': json(ref('OAuthError'), 'invalid_request: body over 100 kB'),
  '415': json(ref('OAuthError'), 'invalid_request: unsupported body encoding or charset'),
  '400': json(
    ref('OAuthError'),
    'invalid_request (a malformed body too), invalid_grant, unsupported_grant_type, invalid_scope or unauthorized_client',
  ),
  '401': json(ref('OAuthError'), 'invalid_client'),
  '503': json(ref('OAuthError'), 'temporarily_unavailable: the database cannot be reached; see Retry-After'),
};
const oauthTokenErrors: Responses = { ...oauthClientErrors, '429': json(ref('OAuthError'), 'too_many_requests; see Retry-After') };

/**
 * An OAuth parameter in a form body: sent once (RFC 6749 §3.1), as long as the server takes it
 * (oauthForm states maxLengthOf(name): protocol.ts PARAMETER_LENGTHS, else LIMITS.parameterLength).
 */
const param = { type: 'string' };
/**
 * An OAuth parameter in a URL: the document promises what every client and proxy carries in a query
 * string (1000 characters; the server takes up to maxLengthOf(name)).
 */
const urlParam = { type: 'string', maxLength: 1000 };
/** A form's string properties with no length of their own get the one the server enforces for that parameter. */
const withEnforcedLengths = (properties: Record<string, Schema>): Record<string, Schema> =>
  Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [
      name,
      schema.type === 'string' && schema.maxLength === undefined && schema.enum === undefined
        ? { ...schema, maxLength: maxLengthOf(name) }
        : schema,
    ]),
  );
const OAUTH_RULES = 'OAuth parameters (oauth.parameters.ts lengths, protocol.ts values)';
/** A URL parameter of an OAuth endpoint, read as its forms' are. */
const oauthQuery = (parameter: { name: string; schema: Schema }) =>
  withRulesFrom(OAUTH_RULES, { ...parameter, in: 'query', required: false });

/** OAuth endpoints ignore parameters they do not know, but refuse a repeated, non-string or over-long one. */
const oauthForm = (properties: Record<string, Schema>, required: string[] = []) =>
  withRulesFrom(OAUTH_RULES, {
    type: 'object',
    required,
    properties: withEnforcedLengths(properties),
    additionalProperties: { type: 'string', maxLength: LIMITS.parameterLength },
  });

/** A client's public keys (RFC 7517 JWK Set). */

/** A request object (OIDC Core 6.1): a JWT in compact form, of at most LIMITS.requestObjectLength characters. */
const requestObjectSchema = (maxLength: number) => ({
  type: 'string',
  maxLength,
  pattern: '^[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]*$',
  description: `A request object (OIDC Core 6.1), a compact JWT; one near ${maxLength} characters is safer sent by POST, since some proxies cut long URLs`,
});

/** One or more of the scopes, space-separated. */
const scopeList = {
  type: 'string',
  pattern: SCOPE_LIST_PATTERN,
  maxLength: maxLengthOf('scope'),
  description: `This server's scopes (${SCOPES.join(', ')}), or those of the resource named in resource`,
};
/** RFC 8707: the API the token is for (one per request here). */
const resourceSchema = {
  type: 'string',
  maxLength: maxLengthOf('resource'),
  description:
    "RFC 8707: an API an operator registered (npm run resources), or this server's issuer for a JWT access token for its own APIs",
};
/** The words of a response type may come in any order (OAuth 2.0 Multiple Response Types). */
const spellings = (words: string[]): string[] =>
  words.length <= 1 ? words : words.flatMap((word, i) => spellings(words.filter((_, j) => j !== i)).map((rest) => `${word} ${rest}`));
const responseTypeEnum = { type: 'string', enum: RESPONSE_TYPES.flatMap((type) => spellings(type.split(' '))) };
const responseModeEnum = { type: 'string', enum: [...RESPONSE_MODES] };
const stateSchema = { type: 'string', pattern: '^[\\x20-\\x7e]+$', maxLength: LIMITS.stateLength };
const promptSchema = { type: 'string', pattern: `^(${PROMPTS.join('|')})( (${PROMPTS.join('|')}))*$` };

/** How a client authenticates in a form: client_secret_post, or a client assertion (RFC 7523). */
const clientCredentialFields = {
  client_id: param,
  client_secret: param,
  client_assertion_type: { type: 'string', enum: [CLIENT_ASSERTION_TYPE] },
  client_assertion: param,
};

const tokenParameters = (grants: readonly string[]) =>
  oauthForm(
    {
      grant_type: { type: 'string', enum: [...grants] },
      ...clientCredentialFields,
      code: param,
      redirect_uri: param,
      code_verifier: param,
      refresh_token: param,
      username: param,
      password: param,
      device_code: param,
      scope: scopeList,
      resource: resourceSchema,
      // RFC 8693 token exchange, and the ID-JAG it may ask for.
      subject_token: param,
      subject_token_type: { type: 'string', enum: [TOKEN_TYPE.accessToken, TOKEN_TYPE.idToken] },
      actor_token: param,
      actor_token_type: { type: 'string', enum: [TOKEN_TYPE.accessToken] },
      requested_token_type: { type: 'string', enum: [TOKEN_TYPE.accessToken, TOKEN_TYPE.idJag] },
      audience: { ...param, description: 'RFC 8693: the target (a resource here; for an ID-JAG, the issuer of the authorization server)' },
      // RFC 7523 §2.1: the JWT bearer grant's assertion (an ID-JAG from a trusted identity provider).
      assertion: param,
    },
    ['grant_type'],
  );

/** What revocation and introspection take: the token, an optional hint and the client's credentials. */
const tokenLookupRequest = formRequest(
  oauthForm({
    token: param,
    token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] },
    ...clientCredentialFields,
  }),
);

/** A claim about a person as userinfo gives it (OIDC Core 5.1). */
function claimSchema(claim: string): Schema {
  if (claim === 'updated_at') return { type: 'integer' };
  if (claim.endsWith('_verified')) return { type: 'boolean' };
  if (claim === 'address') return CLAIMS_SCHEMA.properties.address;
  if (claim === 'roles') return { type: 'array', items: str, description: 'The roles an operator gave the person (admin first)' };
  return str;
}

const userinfoOperation = (operationId: string) => ({
  tags: ['OpenID Connect'],
  operationId,
  summary: 'Claims about the person an access token with the openid scope acts for',
  security: [{ oauth: ['openid'] }],
  responses: {
    '200': {
      description:
        'sub, with the claims the scopes and the claims parameter release; as a JWT signed for the client when it registered userinfo_signed_response_alg',
      content: { 'application/json': { schema: ref('UserInfo') }, 'application/jwt': { schema: { type: 'string' } } },
    },
    '401': json({ oneOf: [ref('OAuthError'), ref('BearerChallenge')] }, 'No bearer token, or invalid_token'),
    '403': json(ref('OAuthError'), 'insufficient_scope: the token lacks openid'),
    ...jsonFaults,
  },
});

/** The registration access token from the registration response. */
const registrationAuth = [{ registrationToken: [] }];

const endSessionParameters = {
  id_token_hint: param,
  post_logout_redirect_uri: param,
  client_id: param,
  state: param,
  ui_locales: param,
};

function endSessionOperation(from: 'query' | 'body') {
  const shared = {
    tags: ['OpenID Connect'],
    operationId: from === 'query' ? 'endSession' : 'endSessionByPost',
    summary:
      from === 'query'
        ? 'RP-initiated logout: signs out at once with an id_token_hint for the signed-in person, else asks'
        : 'RP-initiated logout, or the confirmation form of its page',
    // A signed-in browser session is what it ends, but nothing is needed to call it.
    security: [],
    responses: {
      '200': page('Confirmation form, or "Signed out"'),
      '303': redirect('To the registered post_logout_redirect_uri, with state'),
      '400': page('Bad id_token_hint, client_id not its audience, a post_logout_redirect_uri not registered, or a confirm other than yes'),
      '403': page('Missing or wrong CSRF token (signed in)'),
      ...pageFaults,
    },
  };
  if (from === 'query') {
    return {
      ...shared,
      parameters: Object.keys(endSessionParameters).map((name) => oauthQuery({ name, schema: urlParam })),
    };
  }
  return {
    ...shared,
    requestBody: formRequest(oauthForm({ ...endSessionParameters, _csrf: param, confirm: { type: 'string', enum: ['yes'] } })),
    responses: { ...shared.responses, '413': page('Body over 100 kB') },
  };
}

/** An authorization code exchange, with the client's secret among the parameters (client_secret_post). */
const TOKEN_REQUEST_EXAMPLE = {
  grant_type: 'authorization_code',
  code: 'SplxlOBeZQQYbYS6WxSbIA',
  redirect_uri: 'https://printer.example.com/callback',
  client_id: 'x5BJ2sVf8kq3Wm0n',
  client_secret: 'Wq9cXr2LmT7vB4nZ8pK3sD6fH1jG5aQe0yU',
  code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
};

const v1TokenParameters = tokenParameters(V1_TOKEN_GRANT_TYPES);
const tokenEndpointParameters = tokenParameters(TOKEN_GRANT_TYPES);

/** Redirect URIs in registration metadata: https, http on loopback, or a private-use scheme. */

const authorizeQuery = [
  { name: 'response_type', schema: responseTypeEnum },
  { name: 'client_id', schema: str },
  { name: 'redirect_uri', schema: str },
  { name: 'scope', schema: scopeList },
  { name: 'resource', schema: resourceSchema },
  { name: 'state', schema: stateSchema },
  { name: 'code_challenge', schema: { type: 'string', pattern: PKCE_VALUE.source } },
  { name: 'code_challenge_method', schema: { type: 'string', enum: [...PKCE_METHODS] } },
  { name: 'response_mode', schema: responseModeEnum },
  { name: 'nonce', schema: { type: 'string', maxLength: maxLengthOf('nonce') } },
  { name: 'prompt', schema: promptSchema },
  { name: 'max_age', schema: { type: 'string', pattern: '^[0-9]{1,9}$' } },
  { name: 'login_hint', schema: { type: 'string', maxLength: maxLengthOf('login_hint') } },
  { name: 'ui_locales', schema: { type: 'string', maxLength: maxLengthOf('ui_locales') } },
  { name: 'acr_values', schema: { type: 'string', maxLength: maxLengthOf('acr_values') } },
  // In a URL the document promises what every client and proxy carries (the server takes up to
  // maxLengthOf: a longer request object goes by POST); the fuzzer's 8192 four-byte characters made
  // a 98 kB URL that Node drops.
  { name: 'request', schema: requestObjectSchema(urlParam.maxLength) },
  { name: 'claims', schema: { ...urlParam, description: 'OIDC Core 5.5: a JSON object' } },
  {
    name: 'dpop_jkt',
    schema: {
      type: 'string',
      maxLength: maxLengthOf('dpop_jkt'),
      description: 'RFC 9449 §10: the thumbprint of the DPoP key the code must be exchanged with',
    },
  },
  {
    name: 'request_uri',
    schema: {
      type: 'string',
      maxLength: maxLengthOf('request_uri'),
      description: 'OIDC Core 6.2: where the request object is, one of the request_uris the client registered',
    },
  },
].map(oauthQuery);

/** The authorization request's parameters in a body, where the server's own lengths hold (there is no URL to fit). */
const authorizeForm = (parameters: typeof authorizeQuery): Record<string, Schema> => ({
  ...Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
  request: requestObjectSchema(LIMITS.requestObjectLength),
  claims: { ...param, description: 'OIDC Core 5.5: a JSON object' },
});

/** client_secret_basic, or client_id and client_secret among the parameters (client_secret_post). */
const clientAuth = [{ clientBasic: [] }, {}];

/** The authorization endpoint and its consent form, served at three paths (prefix keeps operationIds apart). */
const authorizeOperations = (prefix: string) => ({
  get: {
    tags: ['OAuth 2'],
    operationId: `${prefix}Authorize`,
    summary: 'Authorization request: consent page, or a redirect to /login',
    security: sessionAuth,
    parameters: authorizeQuery,
    responses: {
      '200': page(
        'Consent page naming the client, its website and the scopes, with Approve and Deny; or, for response_mode=form_post, ' +
          'the page that posts the response to redirect_uri',
      ),
      '302': redirect('To /login when not signed in; to redirect_uri with an error for a bad request'),
      '400': page('Unknown client, or a redirect_uri other than the registered one (no redirect)'),
      '429': page('Too many consent pages opened by this person (rate limits on); see Retry-After'),
      ...pageFaults,
    },
  },
  post: {
    tags: ['OAuth 2'],
    operationId: `${prefix}AuthorizeDecision`,
    summary:
      'An authorization request sent as a form (OIDC Core 3.1.2.1), answered as the GET is; or, with `decision`, ' +
      'the consent decision the consent page posts: it names the request the page showed (`consent`), which the server ' +
      'kept, and acts on that one after the same checks as the page',
    security: sessionAuth,
    requestBody: formRequest({
      anyOf: [
        oauthForm(
          {
            ...authorizeForm(authorizeQuery),
          },
          ['client_id', 'response_type'],
        ),
        oauthForm(
          {
            _csrf: param,
            consent: { type: 'string', pattern: DECISION_ID.pattern, description: "The consent page's request, kept by the server" },
            decision: { type: 'string', enum: ['approve', 'deny'] },
          },
          ['_csrf', 'consent', 'decision'],
        ),
      ],
    }),
    responses: {
      '200': page('For an authorization request: the consent page; with response_mode=form_post, the page that posts the response'),
      '302': redirect(
        'To redirect_uri with code (query) or access_token and token (fragment), or an error (access_denied); ' +
          'for an authorization request, to /login when not signed in',
      ),
      '303': redirect(
        'To /login when not signed in, or when the request asks a fresher sign-in (max_age) than the session has; to /login/step-up for a second factor',
      ),
      '400': page('Unknown client, redirect_uri mismatch, no decision, or a consent page that expired or was used'),
      '403': page('Missing or wrong CSRF token'),
      '413': page('Body over 100 kB'),
      '429': page('Too many consent pages opened by this person (rate limits on); see Retry-After'),
      ...pageFaults,
    },
  },
});

export const oauthOpenApi: OpenApiFragment = {
  paths: {
    '/v1/oauth/authorize': authorizeOperations('v1'),
    '/authorize': authorizeOperations('root'),
    '/oauth/authorize': authorizeOperations('oauth'),
    '/v1/oauth/token': {
      post: {
        tags: ['OAuth 2'],
        operationId: 'tokenV1',
        summary:
          'The v1 token endpoint (seed 001 variant A): authorization_code and refresh_token; parameters in the query string or a form',
        security: clientAuth,
        // In the URL, what a URL carries (urlParam); the form's own lengths in the body.
        parameters: Object.entries(v1TokenParameters.properties).map(([name, schema]) =>
          withRulesFrom(v1TokenParameters[RULES_MARK], {
            name,
            in: 'query',
            required: false,
            schema: Number(schema.maxLength ?? 0) > urlParam.maxLength ? { ...schema, maxLength: urlParam.maxLength } : schema,
          }),
        ),
        requestBody: { required: false, content: { 'application/x-www-form-urlencoded': { schema: v1TokenParameters } } },
        responses: { '200': json(ref('TokenResponseA'), 'Tokens'), ...oauthTokenErrors },
      },
    },
    '/oauth/token': {
      post: {
        tags: ['OAuth 2'],
        operationId: 'token',
        summary:
          'The token endpoint (seed 001 variant B): every grant the client is allowed; form or JSON body; client auth by parameters or HTTP Basic',
        security: clientAuth,
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': { schema: tokenEndpointParameters, example: TOKEN_REQUEST_EXAMPLE },
            'application/json': { schema: tokenEndpointParameters, example: TOKEN_REQUEST_EXAMPLE },
          },
        },
        responses: { '200': json(ref('TokenResponseB'), 'Tokens (no refresh_token for client_credentials)'), ...oauthTokenErrors },
      },
    },
    '/oauth/revoke': {
      post: {
        tags: ['OAuth 2'],
        operationId: 'revokeToken',
        summary: "RFC 7009 revocation of the calling client's token",
        security: clientAuth,
        requestBody: tokenLookupRequest,
        responses: {
          ...oauthClientErrors,
          '200': json({ type: 'object', additionalProperties: false, maxProperties: 0 }, 'Revoked, or unknown (the same answer): {}'),
        },
      },
    },
    '/oauth/introspect': {
      post: {
        tags: ['OAuth 2'],
        operationId: 'introspectToken',
        summary: "RFC 7662 introspection of the calling client's token",
        security: clientAuth,
        requestBody: tokenLookupRequest,
        responses: { ...oauthClientErrors, '200': json(ref('Introspection'), 'Token state') },
      },
    },
    '/oauth/clients': {
      get: {
        tags: ['OAuth 2'],
        operationId: 'listClients',
        summary: "A page of the caller's registered clients, oldest first, without secrets",
        security: [{ jwt: [] }, { session: [] }],
        parameters: queryOf(listClients),
        responses: {
          '200': json({ type: 'array', items: ref('Client'), maxItems: LIMITS.pageSize }, 'Clients'),
          '400': json(ref('Errors'), 'Invalid limit or page'),
          '401': empty('No credentials'),
          '403': empty('Bad access token'),
          ...jsonFaults,
        },
      },
      post: {
        tags: ['OAuth 2'],
        operationId: 'registerClient',
        summary: 'Register a client; its secret is shown once',
        security: [{ jwt: [] }, { session: [] }],
        requestBody: jsonRequest(bodyOf(registerClient)),
        responses: {
          '201': json(ref('ClientWithSecret'), 'Registered'),
          '400': json(ref('Errors'), 'Validation failed'),
          '409': json(ref('Errors'), `The account already owns ${LIMITS.clientsPerOwner} clients`),
          '429': json(ref('Errors'), 'Too many registrations from this address; see Retry-After'),
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
        operationId: 'deleteClient',
        summary: 'Delete a client and revoke everything issued to it',
        security: [{ jwt: [] }, { session: [] }],
        responses: {
          '204': empty('Deleted'),
          '400': malformedPath,
          '401': empty('No credentials'),
          '403': empty('Bad access token'),
          '404': json(ref('Error'), 'Client <clientId> not found'),
          ...jsonFaults,
        },
      },
    },
    [PROTECTED_RESOURCE_PATH]: {
      get: {
        tags: ['OAuth 2'],
        operationId: 'protectedResourceMetadata',
        security: [],
        parameters: conditional,
        summary:
          'RFC 9728 metadata of this server’s own APIs (their resource identifier is the issuer): the authorization server, scopes, ' +
          'how a token is sent; named by resource_metadata in the APIs’ WWW-Authenticate (seed 001’s /api/user and the catalogue aside)',
        responses: { '200': json(ref('ProtectedResourceMetadata'), 'Metadata'), ...notModified },
      },
    },
    [`${PROTECTED_RESOURCE_PATH}/{issuerPath}`]: {
      get: {
        tags: ['OAuth 2'],
        operationId: 'protectedResourceMetadataForPath',
        security: [],
        parameters: [{ name: 'issuerPath', in: 'path', required: true, schema: str }, ...conditional],
        summary: 'The same metadata at its path-suffixed address (RFC 9728 §3.1), for an issuer (PUBLIC_URL) with a path',
        responses: {
          '200': json(ref('ProtectedResourceMetadata'), 'Metadata'),
          ...notModified,
          '404': json(ref('Error'), 'The path is not the issuer’s'),
        },
      },
    },
    '/.well-known/oauth-authorization-server': {
      get: {
        tags: ['OAuth 2'],
        operationId: 'authorizationServerMetadata',
        security: [],
        parameters: conditional,
        summary: 'RFC 8414 metadata (the same document as OpenID discovery)',
        responses: { '200': json(ref('Metadata'), 'Metadata'), ...notModified },
      },
    },
    '/.well-known/openid-configuration': {
      get: {
        tags: ['OpenID Connect'],
        operationId: 'openIdConfiguration',
        security: [],
        parameters: conditional,
        summary: 'OpenID Connect discovery',
        responses: { '200': json(ref('Metadata'), 'Metadata'), ...notModified },
      },
    },
    '/oauth/jwks': {
      get: {
        tags: ['OpenID Connect'],
        operationId: 'jwks',
        security: [],
        parameters: conditional,
        summary: 'The JWK Set that verifies ID tokens (jwks_uri)',
        responses: { '200': json(ref('JwkSet'), 'Public keys'), ...notModified, ...jsonFaults },
      },
    },
    '/oauth/userinfo': {
      get: userinfoOperation('userInfo'),
      post: {
        ...userinfoOperation('userInfoByPost'),
        // RFC 6750 §2.2: the token in a form body instead of the header.
        requestBody: { ...formRequest(oauthForm({ access_token: param })), required: false },
      },
    },
    '/oauth/register': {
      post: {
        tags: ['OpenID Connect'],
        operationId: 'dynamicRegistration',
        summary: 'RFC 7591 dynamic client registration, authorized by an access token from POST /auth',
        description:
          'REGISTRATION=token (the default) as documented here. REGISTRATION=open: a request without an Authorization header registers a public client (token_endpoint_auth_method none), deleted unless it gets a token within OPEN_REGISTRATION_UNUSED_HOURS. REGISTRATION=closed: always 403.',
        security: jwtAuth,
        requestBody: jsonRequest(ref('ClientMetadataRequest')),
        responses: {
          ...oauthClientErrors,
          '201': json(ref('ClientMetadata'), 'Registered: client_secret (unless public) and registration_access_token are shown only here'),
          '400': json(ref('OAuthError'), 'invalid_redirect_uri, invalid_client_metadata, or invalid_request for a malformed body'),
          '401': json(ref('OAuthError'), 'invalid_token: no or a bad access token (one issued before a password change counts as bad)'),
          '403': json(
            ref('OAuthError'),
            `access_denied: the account already owns ${LIMITS.clientsPerOwner} clients, OPEN_REGISTRATION_CAP unused open registrations wait, or registration is closed`,
          ),
          '429': json(ref('OAuthError'), 'too_many_requests: too many registrations from this address; see Retry-After'),
        },
      },
    },
    '/oauth/register/{clientId}': {
      parameters: [pathParam('clientId', 'The client_id')],
      get: {
        tags: ['OpenID Connect'],
        operationId: 'readRegistration',
        summary: 'RFC 7592: read a registration with its registration access token',
        security: registrationAuth,
        responses: {
          '200': json(ref('ClientMetadata'), 'The registration'),
          '400': malformedPath,
          '401': json(ref('OAuthError'), 'invalid_token'),
          ...jsonFaults,
        },
      },
      delete: {
        tags: ['OpenID Connect'],
        operationId: 'deleteRegistration',
        summary: 'RFC 7592: delete a registration and every token issued to the client',
        security: registrationAuth,
        responses: { '204': empty('Deleted'), '400': malformedPath, '401': json(ref('OAuthError'), 'invalid_token'), ...jsonFaults },
      },
    },
    '/home/applications/{clientId}/open': {
      parameters: [pathParam('clientId', 'The client_id of a connected application')],
      get: {
        tags: ['Connected applications'],
        operationId: 'openConnectedApplication',
        summary: 'The Open link of /home and /account: a sign-in started here at the application (OIDC Core §4)',
        security: sessionAuth,
        responses: {
          '303': redirect("To the application's initiate_login_uri, with iss"),
          '302': redirect('To /login when not signed in'),
          '400': page('Malformed path'),
          '404': json(ref('Error'), 'Not an application the person connected, or one that takes no sign-in started here'),
          ...pageFaults,
        },
      },
    },
    '/home/applications/{clientId}/revoke': {
      parameters: [pathParam('clientId', 'The client_id of a connected application')],
      post: {
        tags: ['Connected applications'],
        operationId: 'revokeConnectedApplicationFromHome',
        summary: "The Revoke button of /home: forgets the consent and ends the person's tokens for the client",
        security: sessionAuth,
        requestBody: formRequest(bodySchemaOf(REVOKE_FORM)),
        responses: {
          '303': redirect('Back to /home (or to /login when not signed in)'),
          '400': page('Malformed path, or a back other than /home or /account'),
          '403': page('Missing or wrong CSRF token'),
          '413': page('Body over 100 kB'),
          ...pageFaults,
        },
      },
    },
    '/oauth/grants': {
      get: {
        tags: ['Connected applications'],
        operationId: 'listConnectedApplications',
        summary: 'A page of the applications the caller authorized, oldest first, with scopes and dates',
        security: jwtAuth,
        parameters: queryOf(listGrants),
        responses: {
          '200': json({ type: 'array', items: ref('ConnectedApplication'), maxItems: LIMITS.pageSize }, 'Connected applications'),
          '400': json(ref('Errors'), 'Invalid limit or page'),
          '401': empty('Authorization header absent or not Bearer'),
          '403': empty('Bad access token'),
          ...jsonFaults,
        },
      },
    },
    '/oauth/grants/{clientId}': {
      parameters: [pathParam('clientId', 'The client_id of a connected application')],
      delete: {
        tags: ['Connected applications'],
        operationId: 'revokeConnectedApplication',
        summary: 'Revoke: forgets the consent and ends every token of the caller for the client',
        security: jwtAuth,
        responses: {
          '204': empty('Revoked'),
          '400': malformedPath,
          '401': empty('Authorization header absent or not Bearer'),
          '403': empty('Bad access token'),
          '404': json(ref('Error'), 'No such connected application'),
          ...jsonFaults,
        },
      },
    },
    '/oauth/device_authorization': {
      post: {
        tags: ['Device sign-in'],
        operationId: 'deviceAuthorization',
        summary: 'RFC 8628: a device starts here and gets a user code for a person to type at verification_uri',
        security: clientAuth,
        requestBody: formRequest(oauthForm({ ...clientCredentialFields, scope: scopeList })),
        responses: {
          ...oauthClientErrors,
          '200': json(ref('DeviceAuthorization'), 'device_code, user_code, verification_uri(_complete), expires_in, interval'),
          '400': json(ref('OAuthError'), 'invalid_request, invalid_scope or unauthorized_client (the client may not use the device flow)'),
          '429': json(ref('OAuthError'), 'too_many_requests: too many started from this address or by this client; see Retry-After'),
        },
      },
    },
    '/oauth/par': {
      post: {
        tags: ['OAuth 2'],
        operationId: 'pushedAuthorizationRequest',
        summary:
          "RFC 9126: the client pushes an authorization request (checked now by the authorization endpoint's rules) and gets " +
          'a request_uri to send the browser with, with client_id, to the authorization endpoint',
        security: clientAuth,
        requestBody: formRequest(
          oauthForm({
            ...clientCredentialFields,
            ...authorizeForm(authorizeQuery.filter((parameter) => parameter.name !== 'request_uri')),
          }),
        ),
        responses: {
          ...oauthTokenErrors,
          '201': json(ref('PushedAuthorizationRequest'), 'request_uri (used once) and expires_in'),
          '400': json(ref('OAuthError'), 'An authorization request error (invalid_request, invalid_scope, invalid_request_object, ...)'),
          '429': json(ref('OAuthError'), 'too_many_requests: too many pushed from this address or by this client; see Retry-After'),
        },
      },
    },
    '/device': {
      get: {
        tags: ['Device sign-in'],
        operationId: 'deviceVerificationPage',
        summary: 'The verification page: a form with an input named user_code (filled from ?user_code=)',
        security: sessionAuth,
        parameters: queryParametersOf(VERIFICATION_QUERY),
        responses: {
          '200': page('The form'),
          '302': redirect('To /login, to come back here, when not signed in'),
          '400': page('A user code over its length'),
          ...pageFaults,
        },
      },
      post: {
        tags: ['Device sign-in'],
        operationId: 'deviceVerifyCode',
        summary: 'The typed user code: the consent page for its device, or the form again with a message',
        security: sessionAuth,
        requestBody: formRequest(
          oauthForm({ _csrf: param, user_code: { type: 'string', maxLength: MAX_TYPED_USER_CODE_LENGTH } }, ['_csrf', 'user_code']),
        ),
        responses: {
          '200': page('Consent page (Approve, Deny)'),
          '303': redirect('To /login when not signed in'),
          '400': page('Wrong, expired or used code'),
          '403': page('Missing or wrong CSRF token'),
          '413': page('Body over 100 kB'),
          '429': page('Too many codes typed from this address; see Retry-After'),
          ...pageFaults,
        },
      },
    },
    '/device/decision': {
      post: {
        tags: ['Device sign-in'],
        operationId: 'deviceDecision',
        summary: 'The consent decision for a device',
        security: sessionAuth,
        requestBody: formRequest(
          oauthForm(
            {
              _csrf: param,
              user_code: { type: 'string', maxLength: MAX_TYPED_USER_CODE_LENGTH },
              decision: { type: 'string', enum: ['approve', 'deny'] },
            },
            ['_csrf', 'user_code', 'decision'],
          ),
        ),
        responses: {
          '200': page('Device connected, or access denied'),
          '303': redirect('To /login when not signed in'),
          '400': page('Wrong, expired or used code, or no decision'),
          '403': page('Missing or wrong CSRF token'),
          '413': page('Body over 100 kB'),
          '429': page('Too many codes typed from this address; see Retry-After'),
          ...pageFaults,
        },
      },
    },
    '/oauth/end-session': { get: endSessionOperation('query'), post: endSessionOperation('body') },
    '/oauth/callback-debug': {
      get: {
        tags: ['Demo'],
        operationId: 'callbackDebugPage',
        security: [],
        summary:
          'Development only (404 in production): a redirect URI that shows the authorization response and a form to exchange its code',
        parameters: queryParametersOf(CALLBACK_QUERY),
        responses: {
          '200': page('What the authorization response brought, and the exchange form'),
          '404': json(ref('Error'), 'Not served in production'),
          ...pageFaults,
        },
      },
      post: {
        tags: ['Demo'],
        operationId: 'callbackDebugExchange',
        security: [],
        summary: "Development only: exchanges a code at this server's token endpoint and shows the request and the response",
        requestBody: formRequest(bodySchemaOf(CALLBACK_EXCHANGE_FORM)),
        responses: {
          '200': page("The token endpoint's answer, the ID token's claims decoded"),
          '400': page('A field over its length'),
          '403': page('Missing or wrong CSRF token'),
          '404': json(ref('Error'), 'Not served in production'),
          '413': page('Body over 100 kB'),
          ...pageFaults,
        },
      },
    },
    '/api/user': {
      get: {
        tags: ['OAuth 2'],
        operationId: 'currentOAuthUser',
        summary: 'The user an OAuth access token acts for',
        security: [{ oauth: ['read'] }],
        responses: {
          '200': json(ref('User'), 'The user'),
          '401': json(
            { oneOf: [ref('OAuthError'), ref('BearerChallenge')] },
            'No bearer token (challenge only, no error code), or a wrong, expired or revoked one (invalid_request)',
          ),
          '403': json(ref('OAuthError'), 'insufficient_scope, or a client_credentials token'),
          ...jsonFaults,
        },
      },
    },
  },
  schemas: {
    Grant: { type: 'string', enum: [...GRANT_TYPES] },
    Client: {
      type: 'object',
      required: ['client_id', 'name', 'website', 'redirect_uri', 'grants'],
      properties: { client_id: str, name: str, website: str, redirect_uri: str, grants: { type: 'array', items: ref('Grant') } },
      additionalProperties: false,
    },
    ClientWithSecret: {
      type: 'object',
      required: ['client_id', 'client_secret', 'name', 'website', 'redirect_uri', 'grants'],
      properties: {
        client_id: str,
        client_secret: str,
        name: str,
        website: str,
        redirect_uri: str,
        grants: { type: 'array', items: ref('Grant') },
      },
      additionalProperties: false,
    },
    BearerChallenge: {
      type: 'object',
      required: ['error_description'],
      properties: { error_description: str },
      additionalProperties: false,
    },
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
      properties: {
        token_type: {
          type: 'string',
          enum: ['Bearer', DPOP_TOKEN_TYPE, 'N_A'],
          description: 'DPoP when a DPoP proof came with the request (RFC 9449); N_A for an ID-JAG (RFC 8693 §2.2.1)',
        },
        issued_token_type: {
          type: 'string',
          enum: [TOKEN_TYPE.accessToken, TOKEN_TYPE.idJag],
          description: 'RFC 8693: what a token exchange issued',
        },
        expires_in: int,
        access_token: str,
        refresh_token: str,
        id_token: str,
        scope: { ...str, description: 'The access token’s scope, when a resource was named (its own scopes only)' },
      },
      additionalProperties: false,
    },
    Actor: {
      type: 'object',
      description: 'RFC 8693 §4.1: who acts for the person (a token exchange with an actor token), and whom it acted for in turn',
      required: ['sub'],
      properties: { sub: str, client_id: str, act: ref('Actor') },
      additionalProperties: false,
    },
    Introspection: {
      type: 'object',
      required: ['active'],
      properties: {
        active: { type: 'boolean' },
        scope: str,
        client_id: str,
        token_type: str,
        exp: int,
        iat: int,
        sub: str,
        aud: { ...str, description: 'RFC 8707: the resource the access token is for' },
        act: { ...ref('Actor') },
        cnf: {
          type: 'object',
          required: ['jkt'],
          properties: { jkt: str },
          additionalProperties: false,
          description: 'RFC 9449: the DPoP key of a bound token',
        },
      },
      additionalProperties: false,
    },
    ClientMetadataRequest: {
      ...bodySchemaOf(CLIENT_METADATA),
      description:
        'redirect_uris is required for the code and implicit flows; ' +
        'grant_types and response_types must agree (code needs authorization_code, the others implicit); ' +
        `a public client (none) may use only ${PUBLIC_CLIENT_GRANTS.join(', ')}.`,
    },
    ClientMetadata: {
      type: 'object',
      required: [
        'client_id',
        'client_id_issued_at',
        'registration_client_uri',
        'client_name',
        'redirect_uris',
        'grant_types',
        'response_types',
        'token_endpoint_auth_method',
      ],
      properties: {
        client_id: str,
        client_secret: str,
        client_id_issued_at: { type: 'integer' },
        client_secret_expires_at: { type: 'integer' },
        registration_access_token: str,
        registration_client_uri: str,
        client_name: str,
        client_uri: str,
        redirect_uris: { type: 'array', items: str },
        post_logout_redirect_uris: { type: 'array', items: str },
        grant_types: { type: 'array', items: ref('Grant') },
        response_types: { type: 'array', items: str },
        token_endpoint_auth_method: str,
        application_type: { type: 'string', enum: [...APPLICATION_TYPES] },
        scope: str,
        ...Object.fromEntries([...PAGE_METADATA, ...SIGNING_METADATA].map((field) => [field, str])),
        jwks: JWKS_SCHEMA,
        jwks_uri: str,
        token_endpoint_auth_signing_alg: str,
        request_object_signing_alg: str,
        request_uris: { type: 'array', items: str },
        require_pushed_authorization_requests: { type: 'boolean' },
        require_signed_request_object: { type: 'boolean' },
        fapi_profile: str,
        backchannel_logout_uri: str,
        backchannel_logout_session_required: { type: 'boolean' },
        initiate_login_uri: str,
      },
      additionalProperties: false,
    },
    ConnectedApplication: {
      type: 'object',
      required: ['client_id', 'name', 'scope', 'first_granted_at', 'last_used_at'],
      properties: {
        client_id: str,
        name: str,
        website: str,
        scope: { type: 'array', items: str },
        first_granted_at: { type: 'string', format: 'date-time' },
        last_used_at: { type: 'string', format: 'date-time' },
        initiate_login_uri: { ...str, description: 'OIDC Core §4: where the application takes sign-ins started elsewhere' },
      },
      additionalProperties: false,
    },
    PushedAuthorizationRequest: {
      type: 'object',
      required: ['request_uri', 'expires_in'],
      properties: {
        request_uri: { type: 'string', pattern: `^${PUSHED_REQUEST_URI_PREFIX}[A-Za-z0-9_-]+$` },
        expires_in: int,
      },
      additionalProperties: false,
    },
    DeviceAuthorization: {
      type: 'object',
      required: ['device_code', 'user_code', 'verification_uri', 'verification_uri_complete', 'expires_in', 'interval'],
      properties: {
        device_code: str,
        user_code: { type: 'string', pattern: '^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$' },
        verification_uri: str,
        verification_uri_complete: str,
        expires_in: int,
        interval: int,
      },
      additionalProperties: false,
    },
    JwkSet: {
      type: 'object',
      required: ['keys'],
      properties: {
        keys: {
          type: 'array',
          items: { type: 'object', required: ['kty', 'kid'], properties: { kty: str, kid: str, alg: str, use: str } },
        },
      },
    },
    UserInfo: {
      type: 'object',
      required: ['sub'],
      properties: Object.fromEntries(PERSON_CLAIMS.map((claim) => [claim, claimSchema(claim)])),
      additionalProperties: false,
    },
    ProtectedResourceMetadata: {
      type: 'object',
      required: ['resource', 'authorization_servers'],
      properties: {
        resource: str,
        authorization_servers: { type: 'array', items: str },
        scopes_supported: { type: 'array', items: str },
        bearer_methods_supported: { type: 'array', items: str },
        resource_name: str,
        resource_documentation: str,
        dpop_signing_alg_values_supported: { type: 'array', items: str },
        dpop_bound_access_tokens_required: { type: 'boolean' },
      },
    },
    Metadata: {
      type: 'object',
      required: ['issuer', 'authorization_endpoint', 'token_endpoint'],
      properties: { issuer: str, authorization_endpoint: str, token_endpoint: str },
    },
  },
  examples: {
    Client: {
      client_id: 'x5BJ2sVf8kq3Wm0n',
      name: 'Photo Printer',
      website: 'https://printer.example.com',
      redirect_uri: 'https://printer.example.com/callback',
      grants: ['authorization_code', 'refresh_token'],
    },
    ClientWithSecret: {
      client_id: 'x5BJ2sVf8kq3Wm0n',
      client_secret: 'Wq9cXr2LmT7vB4nZ8pK3sD6fH1jG5aQe0yU',
      name: 'Photo Printer',
      website: 'https://printer.example.com',
      redirect_uri: 'https://printer.example.com/callback',
      grants: ['authorization_code', 'refresh_token'],
    },
    OAuthError: { error: 'invalid_grant', error_description: 'Invalid grant: authorization code is invalid' },
    TokenResponseA: {
      access_token: 'mF_9B5f-4.1JqM',
      token_type: 'bearer',
      expires_in: 2592000,
      refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA',
      scope: 'read',
      uid: 42,
      info: { name: 'Ann Lee', email: 'ann@example.com' },
    },
    TokenResponseB: {
      token_type: 'Bearer',
      expires_in: 31536000,
      access_token: 'mF_9B5f-4.1JqM',
      refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA',
      id_token: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwOi8vbG9jYWxob3N0OjMwMDAiLCJzdWIiOiIyVzlDczlFZU8ifQ.c2lnbmF0dXJl',
    },
    Introspection: {
      active: true,
      scope: 'openid profile',
      client_id: 'x5BJ2sVf8kq3Wm0n',
      token_type: 'Bearer',
      exp: 1798099200,
      iat: 1766563200,
      sub: '2W9Cs9EeO',
    },
    ConnectedApplication: {
      client_id: 'x5BJ2sVf8kq3Wm0n',
      name: 'Photo Printer',
      website: 'https://printer.example.com',
      scope: ['openid', 'profile'],
      first_granted_at: '2026-11-02T09:30:00.000Z',
      last_used_at: '2026-11-20T17:05:12.000Z',
    },
    PushedAuthorizationRequest: { request_uri: 'urn:ietf:params:oauth:request_uri:bwc4JK-ESC0w8acc191e-Y1LTC2', expires_in: 60 },
    DeviceAuthorization: {
      device_code: 'GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS',
      user_code: 'WDJB-MJHT',
      verification_uri: 'https://id.example.com/device',
      verification_uri_complete: 'https://id.example.com/device?user_code=WDJB-MJHT',
      expires_in: 600,
      interval: 5,
    },
    UserInfo: {
      sub: '2W9Cs9EeO',
      name: 'Ann Lee',
      given_name: 'Ann',
      family_name: 'Lee',
      email: 'ann@example.com',
      email_verified: false,
    },
  },
};
