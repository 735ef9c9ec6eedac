// RFC 7591 client metadata, field by field, declared once: each field's rule as the OpenAPI document
// states it (ClientMetadataRequest, the admin API's PATCH) and the reading that holds a value to it,
// refused with RFC 7591 §3.2.2's error and words. What depends on another field or on the deployment
// (an address this server will call, a grant that needs a response type) is registration.service.ts's.
import { Refusal } from '../../common/refusals';
import type { RequestField } from '../../common/request-fields';
import { JWKS_LIMITS, jwksProblem } from './client-keys.service';
import { isRegistrableRedirectUri, normalizeRedirectUri, REDIRECT_URI_RULE } from './clients.service';
import {
  APPLICATION_TYPES,
  ASSERTION_ALGORITHMS,
  ASSERTION_SIGNING_ALGORITHMS,
  CLIENT_AUTH_METHODS,
  FAPI_PROFILES,
  GRANT_TYPES,
  LIMITS,
  REQUEST_OBJECT_ALGORITHMS,
  RESPONSE_TYPE_GRANTS,
  SELF_REGISTRABLE_GRANTS,
  SCOPE_LIST_PATTERN,
  SIGNING_ALGORITHMS,
  type ApplicationType,
  type ClientAuthMethod,
  type GrantType,
  type ResponseType,
} from '../protocol';

/** RFC 7591 §3.2.2's refusals: a Refusal with the RFC's error code, worded by the surface's presenter. */
export class RegistrationError extends Refusal {
  constructor(error: 'invalid_redirect_uri' | 'invalid_client_metadata', description: string) {
    super('invalid', description, error);
  }
}

export const invalid = (description: string) => new RegistrationError('invalid_client_metadata', description);
export const redirectUriError = (description: string) =>
  new RegistrationError('invalid_redirect_uri', `${description} (${REDIRECT_URI_RULE})`);

/** An http(s) address of at most LIMITS.redirectUriLength characters. */
export const isWebAddress = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= LIMITS.redirectUriLength && /^https?:/.test(normalizeRedirectUri(value) ?? '');

type Refuse = (description: string) => RegistrationError;

/** A member: absent is undefined; a present value is `check`ed (it returns the value, or throws). */
const member = <T>(schema: Record<string, unknown>, check: (value: unknown) => T, description?: string): RequestField<T | undefined> => ({
  ...(description !== undefined && { description }),
  schema,
  read: (value) => (value === undefined ? undefined : check(value)),
});

const address = (name: string, rule = `${name} must be an http(s) URL`, description?: string) =>
  member(
    { type: 'string', format: 'uri', maxLength: LIMITS.redirectUriLength },
    (value) => {
      if (!isWebAddress(value)) throw invalid(rule);
      return value;
    },
    description,
  );

const oneOf = <T extends string>(values: readonly T[], rule: string, description?: string) =>
  member(
    { type: 'string', enum: [...values] },
    (value) => {
      if (!(values as readonly unknown[]).includes(value)) throw invalid(rule);
      return value as T;
    },
    description,
  );

const flag = (name: string, description?: string) =>
  member(
    { type: 'boolean' },
    (value) => {
      if (typeof value !== 'boolean') throw invalid(`${name} must be true or false`);
      return value;
    },
    description,
  );

/** A list of at most `maxItems` (LIMITS.urisPerClient) strings, each passing `check`; repeats count once. */
function list<T extends string>(
  name: string,
  items: Record<string, unknown>,
  check: (item: string) => boolean,
  options: { refuse?: Refuse; empty?: string; maxItems?: number; description?: string } = {},
) {
  const { refuse = invalid, empty, maxItems = LIMITS.urisPerClient, description } = options;
  const minItems = empty === undefined ? undefined : 1;
  return member(
    { type: 'array', items, maxItems, ...(minItems !== undefined && { minItems }) },
    (value) => {
      if (!Array.isArray(value) || value.length > maxItems || !value.every((item): item is string => typeof item === 'string'))
        throw invalid(`${name} must be a list of at most ${maxItems} strings`);
      if (empty !== undefined && value.length === 0) throw refuse(empty);
      const bad = value.find((item) => !check(item));
      if (bad !== undefined) throw refuse(`${name} has a value this server does not accept: ${bad.slice(0, 200)}`);
      return [...new Set(value)] as T[];
    },
    description,
  );
}

const redirectUris = (name: string, empty?: string) =>
  list(name, { type: 'string', maxLength: LIMITS.redirectUriLength }, isRegistrableRedirectUri, { refuse: redirectUriError, empty });

const clientName = member({ type: 'string', minLength: 1, maxLength: LIMITS.clientNameLength, pattern: '\\S' }, (value) => {
  if (typeof value !== 'string' || value.trim() === '' || value.length > LIMITS.clientNameLength)
    throw invalid(`client_name must be 1 to ${LIMITS.clientNameLength} characters`);
  return value.trim();
});

/** A client's public keys (RFC 7517 JWK Set). */
export const JWKS_SCHEMA = {
  type: 'object',
  description: `A JWK Set of at most ${JWKS_LIMITS.registeredBytes / 1024} kB; only each key's kty, crv, x, y, n, e, kid, alg and use are kept`,
  required: ['keys'],
  properties: { keys: { type: 'array', minItems: 1, maxItems: JWKS_LIMITS.keys, items: { type: 'object' } } },
};

const grantsOf = (grants: readonly GrantType[], description?: string) =>
  list<GrantType>('grant_types', { type: 'string', enum: [...grants] }, (grant) => (grants as readonly string[]).includes(grant), {
    empty: 'grant_types must name at least one grant type',
    maxItems: grants.length,
    description,
  });

/** The signing algorithms a client chooses for what this server signs for it. */
const signingAlgorithm = (name: string) => oneOf(SIGNING_ALGORITHMS, `${name} must be one of ${SIGNING_ALGORITHMS.join(', ')}`);

/** Said when a client's assertion algorithm does not go with its way of authenticating. */
export const ASSERTION_ALGORITHM_RULE = `token_endpoint_auth_signing_alg must go with private_key_jwt (${ASSERTION_ALGORITHMS.private_key_jwt.join(', ')}) or client_secret_jwt (HS256)`;
export const JWKS_URI_RULE = 'jwks_uri must be an https URL of a public host';
export const BACKCHANNEL_RULE = 'backchannel_logout_uri must be an https URL of a public host, without a fragment';
export const INITIATE_LOGIN_RULE = 'initiate_login_uri must be an https URL without a fragment';

/** The scopes a client may ask for (RFC 7591 §2), as a space-separated list of scope tokens. */
const REGISTERED_SCOPE_LENGTH = 1024;

/** A registration request's members (POST /oauth/register, the admin API's and the console's registrations). */
export const CLIENT_METADATA = {
  application_type: oneOf<ApplicationType>(
    APPLICATION_TYPES,
    `application_type must be ${APPLICATION_TYPES.join(' or ')}`,
    'OIDC Dynamic Client Registration §2 (web when absent): stated, its redirect rules apply to redirect_uris',
  ),
  scope: member(
    { type: 'string', maxLength: REGISTERED_SCOPE_LENGTH, pattern: SCOPE_LIST_PATTERN },
    (value) => {
      if (typeof value !== 'string' || value.length > REGISTERED_SCOPE_LENGTH || !new RegExp(SCOPE_LIST_PATTERN).test(value))
        throw invalid(`scope must be space-separated scope values, at most ${REGISTERED_SCOPE_LENGTH} characters`);
      return [...new Set(value.split(' '))].join(' ');
    },
    'RFC 7591 §2: the scope values the client will ask for, stored and shown as sent',
  ),
  token_endpoint_auth_method: oneOf<ClientAuthMethod>(
    CLIENT_AUTH_METHODS,
    `token_endpoint_auth_method must be one of ${CLIENT_AUTH_METHODS.join(', ')}`,
  ),
  grant_types: grantsOf(SELF_REGISTRABLE_GRANTS, 'Any grant but password, which only an operator gives'),
  response_types: list<ResponseType>(
    'response_types',
    { type: 'string', enum: Object.keys(RESPONSE_TYPE_GRANTS) },
    (type) => type in RESPONSE_TYPE_GRANTS,
    { maxItems: Object.keys(RESPONSE_TYPE_GRANTS).length },
  ),
  redirect_uris: redirectUris('redirect_uris'),
  post_logout_redirect_uris: redirectUris('post_logout_redirect_uris'),
  client_name: clientName,
  client_uri: address('client_uri'),
  logo_uri: address('logo_uri'),
  policy_uri: address('policy_uri'),
  tos_uri: address('tos_uri'),
  id_token_signed_response_alg: signingAlgorithm('id_token_signed_response_alg'),
  userinfo_signed_response_alg: signingAlgorithm('userinfo_signed_response_alg'),
  authorization_signed_response_alg: signingAlgorithm('authorization_signed_response_alg'),
  initiate_login_uri: member(
    { type: 'string', format: 'uri', maxLength: LIMITS.redirectUriLength },
    (value) => {
      if (!isWebAddress(value) || !value.startsWith('https:') || value.includes('#')) throw invalid(INITIATE_LOGIN_RULE);
      return value;
    },
    'OIDC Core §4, Dynamic Client Registration §2: https always; a connected person’s Open link sends them there with iss',
  ),
  jwks: member(JWKS_SCHEMA, (value) => {
    if (JSON.stringify(value).length > JWKS_LIMITS.registeredBytes)
      throw invalid(`jwks must be at most ${JWKS_LIMITS.registeredBytes / 1024} kB: register a jwks_uri for larger sets`);
    const problem = jwksProblem(value);
    if (problem) throw invalid(`jwks ${problem}`);
    return value as { keys: unknown[] };
  }),
  jwks_uri: address('jwks_uri', JWKS_URI_RULE, 'https on a public host (http and loopback too outside production)'),
  token_endpoint_auth_signing_alg: oneOf(ASSERTION_SIGNING_ALGORITHMS, ASSERTION_ALGORITHM_RULE),
  request_object_signing_alg: oneOf(
    REQUEST_OBJECT_ALGORITHMS,
    `request_object_signing_alg must be one of ${REQUEST_OBJECT_ALGORITHMS.join(', ')}`,
  ),
  request_uris: list(
    'request_uris',
    { type: 'string', format: 'uri', maxLength: LIMITS.requestUriLength },
    (uri) => uri.length <= LIMITS.requestUriLength && isWebAddress(uri.split('#', 1)[0]),
    { description: 'Where request objects by reference may be (request_uri); https to public hosts in production' },
  ),
  require_pushed_authorization_requests: flag(
    'require_pushed_authorization_requests',
    'RFC 9126: authorization requests must be pushed first',
  ),
  require_signed_request_object: flag(
    'require_signed_request_object',
    'RFC 9101 §10.5: authorization requests must come as signed request objects',
  ),
  backchannel_logout_uri: address('backchannel_logout_uri', BACKCHANNEL_RULE),
  backchannel_logout_session_required: flag('backchannel_logout_session_required'),
  fapi_profile: oneOf(
    FAPI_PROFILES,
    `fapi_profile must be ${FAPI_PROFILES.join(' or ')}`,
    'fapi2: the FAPI 2.0 Security Profile’s rules apply to the client; fapi2-message-signing: FAPI 2.0 Message Signing’s too (signed request objects at PAR, JARM)',
  ),
};

/** What an operator may change of a registration (the console's edit form, the admin API's PATCH). */
export const CHANGEABLE_METADATA_FIELDS = {
  client_name: clientName,
  // Empty: no website.
  client_uri: member({ type: 'string', maxLength: LIMITS.redirectUriLength }, (value) => {
    if (value !== '' && !isWebAddress(value)) throw invalid('client_uri must be an http(s) URL');
    return value;
  }),
  redirect_uris: redirectUris('redirect_uris', 'redirect_uris must keep at least one address'),
  grant_types: grantsOf(GRANT_TYPES, 'An operator may also give the password grant'),
};
