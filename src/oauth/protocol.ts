// The protocol's vocabulary, written once: grant types, response types and modes, scopes and the
// claims each releases, client authentication methods, PKCE methods, prompts, the device flow's user
// codes and the protocol limits. Discovery, validation, the OpenAPI document and the docs' tables are
// all built from these lists (docs/oauth.md restates them for client developers).

import { MAX_EMAIL_LENGTH } from '../common/validation';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8693: a token exchanged for another. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 7523 §2.1: a JWT as the grant (here an ID-JAG from a trusted identity provider). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** RFC 8693 §3 token type identifiers, and the Identity Assertion Authorization Grant's. */
export const TOKEN_TYPE = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  idJag: 'urn:ietf:params:oauth:token-type:id-jag',
} as const;
/** The JWT `typ` of an Identity Assertion JWT Authorization Grant. */
export const ID_JAG_TYPE = 'oauth-id-jag+jwt';

/** Where each endpoint is served, under PUBLIC_URL: the routes mount these and discovery advertises them. */
export const ENDPOINTS = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  userinfo: '/oauth/userinfo',
  jwks: '/oauth/jwks',
  registration: '/oauth/register',
  endSession: '/oauth/end-session',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  deviceAuthorization: '/oauth/device_authorization',
  pushedAuthorization: '/oauth/par',
} as const;

/** The operator's API, for tokens with ADMIN_SCOPE. */
export const ADMIN_API = {
  resources: '/admin/api/resources',
  roles: '/admin/api/roles',
  people: '/admin/api/people',
  events: '/admin/api/events',
  applications: '/admin/api/applications',
  keys: '/admin/api/keys',
  exchangePolicies: '/admin/api/exchange-policies',
  documentClients: '/admin/api/document-clients',
  documentHosts: '/admin/api/document-hosts',
} as const;

/** RFC 9126 §2.2: the request_uri of a pushed request starts so (the rest is a random handle). */
export const PUSHED_REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** OpenID Connect Discovery and RFC 8414, one document at both. */
export const DISCOVERY_PATHS = ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'];

/** RFC 9728 §3.1: where a protected resource's metadata is, before the resource identifier's path. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** The metadata URL of the resource `resource` (its path, when it has one, after the well-known part). */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${PROTECTED_RESOURCE_PATH}${url.pathname === '/' ? '' : url.pathname}`;
}

/** Every grant a client may be allowed; `implicit` is used at the authorization endpoint only. */
export const GRANT_TYPES = [
  'authorization_code',
  'implicit',
  'refresh_token',
  'password',
  'client_credentials',
  DEVICE_CODE_GRANT,
  TOKEN_EXCHANGE_GRANT,
  JWT_BEARER_GRANT,
] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/** Grants presented at the token endpoint (all but implicit). */
export const TOKEN_GRANT_TYPES = GRANT_TYPES.filter((grant): grant is Exclude<GrantType, 'implicit'> => grant !== 'implicit');
export type TokenGrantType = (typeof TOKEN_GRANT_TYPES)[number];

/** POST /v1/oauth/token (seed 001's variant A) takes only these. */
export const V1_TOKEN_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const satisfies readonly TokenGrantType[];

/** What seed 001's POST /oauth/clients gives a client that names no grants. */
export const DEFAULT_CLIENT_GRANTS: readonly GrantType[] = ['authorization_code', 'implicit', 'refresh_token'];
/** What RFC 7591 registration gives a client that names no grant_types. */
export const DEFAULT_REGISTRATION_GRANTS: readonly GrantType[] = ['authorization_code'];
/**
 * Grants dynamic registration gives: every one but the password grant, which is only for
 * applications the person trusts (seed 001 rule 4) and which RFC 9700 §2.4 says must not be used;
 * an operator gives it (`npm run oauth:client`).
 */
export const SELF_REGISTRABLE_GRANTS: readonly GrantType[] = GRANT_TYPES.filter((grant) => grant !== 'password');
/** Grants a public client (no secret) may use: each needs no client secret to be safe (PKCE, a person's approval). */
export const PUBLIC_CLIENT_GRANTS: readonly GrantType[] = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT];

/** `id_token` and `id_token token` are OpenID Connect's implicit flow (Core §3.2); each needs a grant. */
export const RESPONSE_TYPE_GRANTS = {
  code: ['authorization_code'],
  token: ['implicit'],
  id_token: ['implicit'],
  'id_token token': ['implicit'],
  // OpenID Connect Core §3.3, the hybrid flow: a code, and tokens from the authorization endpoint too
  // (OIDC Dynamic Client Registration §2: such a client holds both grants).
  'code id_token': ['authorization_code', 'implicit'],
  'code token': ['authorization_code', 'implicit'],
  'code id_token token': ['authorization_code', 'implicit'],
} as const satisfies Record<string, readonly GrantType[]>;
export type ResponseType = keyof typeof RESPONSE_TYPE_GRANTS;
/** Each spelled with its words in alphabetical order (how a request's value is compared). */
export const RESPONSE_TYPES = Object.keys(RESPONSE_TYPE_GRANTS) as ResponseType[];
/** Whether a client holding these grants may use the response type. */
export const allowsResponseType = (grants: readonly string[], type: ResponseType): boolean =>
  RESPONSE_TYPE_GRANTS[type].every((grant) => grants.includes(grant));

/**
 * form_post: OAuth 2.0 Form Post Response Mode, a page that posts the values to the redirect URI.
 * The `.jwt` modes and `jwt` (JARM): the values signed in one JWT, sent as `response` the same ways;
 * `jwt` is query.jwt for a code alone and fragment.jwt otherwise.
 */
export const RESPONSE_MODES = ['query', 'fragment', 'form_post', 'query.jwt', 'fragment.jwt', 'form_post.jwt', 'jwt'] as const;
/** How the answer travels: the carrier, and whether its values are signed (JARM). */
export type ResponseMode = Exclude<(typeof RESPONSE_MODES)[number], 'jwt'>;
/** JARM §2.1: how long a signed authorization response is good for. */
export const JARM_LIFETIME_SECONDS = 300;

export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/**
 * RFC 7523 client assertions: the methods that use one, and what each may be signed with (private_key_jwt
 * with the client's registered keys, client_secret_jwt with its secret).
 */
export const ASSERTION_ALGORITHMS = {
  private_key_jwt: ['RS256', 'PS256', 'ES256'],
  client_secret_jwt: ['HS256'],
} as const satisfies Partial<Record<ClientAuthMethod, readonly string[]>>;
export type AssertionMethod = keyof typeof ASSERTION_ALGORITHMS;
export const isAssertionMethod = (method: unknown): method is AssertionMethod =>
  typeof method === 'string' && method in ASSERTION_ALGORITHMS;
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
export const ASSERTION_SIGNING_ALGORITHMS = [...new Set(Object.values(ASSERTION_ALGORITHMS).flat())];

/**
 * FAPI 2.0 Security Profile (final): a client registered with `fapi_profile` gets its rules. §5.4:
 * what its JWTs (client assertions, request objects) are signed with and what this server signs for it.
 * `fapi2-message-signing` adds FAPI 2.0 Message Signing (final): signed request objects at PAR (§5.3)
 * and signed authorization responses (JARM, §5.4).
 */
export const FAPI_PROFILES = ['fapi2', 'fapi2-message-signing'] as const;
/** OpenID Connect Dynamic Client Registration §2: what kind of application a client is (web when unstated). */
export const APPLICATION_TYPES = ['web', 'native'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];
export type FapiProfile = (typeof FAPI_PROFILES)[number];
/** FAPI 2.0 Message Signing §5.3.1: a request object's nbf at most 60 minutes old, its exp at most 60 minutes after nbf. */
export const MESSAGE_SIGNING_REQUEST_OBJECT_SECONDS = 3600;
export const FAPI_ALGORITHMS = ['PS256', 'ES256', 'EdDSA'] as const;
/** FAPI 2.0 §5.3.2.1: the grants a FAPI client may hold (no implicit, no password). */
export const FAPI_GRANTS: readonly GrantType[] = ['authorization_code', 'refresh_token', 'client_credentials'];
/** FAPI 2.0 §5.4: what this server signs for a FAPI client (ID tokens, userinfo, JARM) unless it registered otherwise. */
export const FAPI_SIGNING_ALGORITHM = 'ES256' satisfies SigningAlgorithm;
/** FAPI 2.0 §5.3.2.1-13: authorization codes live at most 60 s. */
export const FAPI_CODE_LIFETIME_SECONDS = 60;

/** RFC 9449: what DPoP proofs may be signed with (asymmetric only; discovery's dpop_signing_alg_values_supported). */
export const DPOP_ALGORITHMS = ['ES256', 'PS256', 'RS256', 'EdDSA'] as const;
/** RFC 9449 §6: the token type of a DPoP-bound access token, and the Authorization scheme it is sent with. */
export const DPOP_TOKEN_TYPE = 'DPoP';
/** RFC 9449 §10: a JWK SHA-256 thumbprint (RFC 7638), as `dpop_jkt` carries one. */
export const JWK_THUMBPRINT_LENGTH = 43;
export const JWK_THUMBPRINT = new RegExp(`^[A-Za-z0-9_-]{${JWK_THUMBPRINT_LENGTH}}$`);

/**
 * Request objects (OIDC Core §6.1, RFC 9101) by value: signed with the client's keys or (client_secret_jwt
 * clients) its secret, or unsigned (`none`) for a client that registered request_object_signing_alg none.
 */
export const REQUEST_OBJECT_ALGORITHMS = ['none', ...ASSERTION_SIGNING_ALGORITHMS] as const;
/** Clients registered before RFC 7591 (no method stored) authenticate with either secret method. */
export const DEFAULT_CLIENT_AUTH_METHOD: ClientAuthMethod = 'client_secret_basic';

export const PKCE_METHODS = ['S256', 'plain'] as const;
export type PkceMethod = (typeof PKCE_METHODS)[number];
/** RFC 7636 §4.1: 43 to 128 unreserved characters, for the verifier and the challenge alike. */
export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

export const PROMPTS = ['none', 'login', 'consent', 'select_account'] as const;

/**
 * Scopes: seed 001's `read` (the default) and `write`, and OpenID Connect's. Each carries what the
 * consent page says of it and the claims it releases (OIDC Core §5.4, the claims of §5.1).
 */
export const SCOPE_DEFINITIONS = {
  read: { consent: 'Read your account details', claims: [] },
  write: { consent: 'Change data on your behalf', claims: [] },
  openid: { consent: 'Know who you are (sign you in)', claims: ['sub'] },
  profile: {
    consent: 'See your name, picture and profile details',
    claims: [
      'name',
      'given_name',
      'family_name',
      'middle_name',
      'nickname',
      'preferred_username',
      'profile',
      'picture',
      'website',
      'gender',
      'birthdate',
      'zoneinfo',
      'locale',
      'updated_at',
    ],
  },
  email: { consent: 'See your email address', claims: ['email', 'email_verified'] },
  address: { consent: 'See your postal address', claims: ['address'] },
  phone: { consent: 'See your phone number', claims: ['phone_number', 'phone_number_verified'] },
  offline_access: { consent: 'Keep access while you are away', claims: [] },
  // docs/oauth.md, Roles: the names of the roles an operator gave the person (`admin` among them for an admin).
  roles: { consent: 'See the roles you hold here', claims: ['roles'] },
} as const satisfies Record<string, { consent: string; claims: readonly string[] }>;
export type Scope = keyof typeof SCOPE_DEFINITIONS;
export const SCOPES = Object.keys(SCOPE_DEFINITIONS) as Scope[];
export const DEFAULT_SCOPE: readonly Scope[] = ['read'];
/** The protected resource (GET /api/user) needs this scope. */
export const RESOURCE_SCOPE: Scope = 'read';
/**
 * The operator's scope: the admin API (/admin/api) takes tokens with it. Never offered to people:
 * only the client_credentials grant of a client the operator allowed (`operatorAccess`) gets it.
 */
export const ADMIN_SCOPE = 'admin';

/** RFC 8707 resources: the forms of access token one may get (RFC 9068 JWT, or opaque as before). */
export const RESOURCE_FORMATS = ['jwt', 'opaque'] as const;
export type ResourceFormat = (typeof RESOURCE_FORMATS)[number];
/** RFC 9068 §2.1: the `typ` of a JWT access token's header. */
export const JWT_ACCESS_TOKEN_TYPE = 'at+jwt';
/** RFC 6749 §3.3 scope-token: what a resource's own scopes are made of (and how long one may be). */
export const SCOPE_TOKEN_LENGTH = 64;
export const SCOPE_TOKEN = new RegExp(`^[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,${SCOPE_TOKEN_LENGTH}}$`);
/** Scopes about the person and the sign-in, never an API's own. */
export const SIGN_IN_SCOPES: readonly string[] = ['openid', 'offline_access'];

/** The claims about a person that some scope releases (`sub` included). */
export const PERSON_CLAIMS: readonly string[] = [...new Set(SCOPES.flatMap((scope) => SCOPE_DEFINITIONS[scope].claims))];

/** The scopes that release a claim: what a request for it by the `claims` parameter asks the person for. */
export const scopesReleasing = (claim: string): Scope[] =>
  SCOPES.filter((scope) => (SCOPE_DEFINITIONS[scope].claims as readonly string[]).includes(claim));

/**
 * Authentication context classes (docs/oauth.md, Claims): `1` is a single factor (a password, or
 * GitHub); `2` is a second factor on top (a one-time code or a passkey), or a passkey alone.
 */
export const ACR_VALUES = ['1', '2'] as const;
export type Acr = (typeof ACR_VALUES)[number];
/** The multi-factor class: what a client asks for with acr_values=2. */
export const MULTI_FACTOR_ACR: Acr = '2';

/** How the person signed in (RFC 8176 values), as the session and every token descending from it record it. */
export type Amr = 'pwd' | 'otp' | 'hwk' | 'swk' | 'mfa' | 'fed';

/** The class the methods reach: a passkey, or any two factors (`mfa`), is `2`. */
export const acrOf = (amr: readonly string[] | undefined): Acr =>
  amr?.some((method) => method === 'mfa' || method === 'hwk' || method === 'swk') ? '2' : '1';

/** Claims of the ID token itself, besides those about the person. */
export const ID_TOKEN_CLAIMS = ['iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'azp', 'at_hash', 'c_hash', 'acr', 'amr', 'sid'] as const;
export const CLAIMS_SUPPORTED = [...new Set([...PERSON_CLAIMS, ...ID_TOKEN_CLAIMS])];

/**
 * What this server signs ID tokens and userinfo responses with: one current key of each. RS256 is
 * the default; a client chooses another with id_token_signed_response_alg or userinfo_signed_response_alg.
 */
export const SIGNING_ALGORITHMS = ['RS256', 'ES256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];
export const DEFAULT_SIGNING_ALGORITHM: SigningAlgorithm = 'RS256';
/**
 * JWT access tokens are ES256 unless a resource asks for RS256: FAPI 2.0 (§5.4.1) allows no RS256,
 * and a P-256 signature is a fifth of the size and a twentieth of the work (docs/benchmarks.md).
 * RFC 9068 §4 has every party support RS256, which a resource registered with it gets.
 */
export const JWT_ACCESS_TOKEN_ALGORITHM: SigningAlgorithm = 'ES256';
export const isSigningAlgorithm = (value: unknown): value is SigningAlgorithm => SIGNING_ALGORITHMS.includes(value as SigningAlgorithm);

/** The event a back-channel logout token carries (OpenID Connect Back-Channel Logout 1.0 §2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** RFC 8628 user codes: 8 letters without vowels or look-alikes, shown as BCDF-GHJK. */
export const USER_CODE = { alphabet: 'BCDFGHJKLMNPQRSTVWXZ', length: 8, groupSize: 4 } as const;
/** What the verification page accepts as typed (dashes and spaces included). */
export const MAX_TYPED_USER_CODE_LENGTH = 20;

/** Protocol limits. */
export const LIMITS = {
  /** RFC 6749 §3.1: any one parameter; longer is invalid_request. */
  parameterLength: 2048,
  /**
   * A request object (`request`) may be longer: a signed JWT carries its whole request. A JWT is
   * ASCII, so with the rest of a GET it stays within Node's 16 kB of request headers.
   */
  requestObjectLength: 8192,
  /** OIDC Core §6.2: a `request_uri` (and a registered `request_uris` entry) is at most 512 ASCII characters. */
  requestUriLength: 512,
  /** A request object fetched from a `request_uri`: the whole exchange, connection to last byte. */
  requestUriFetchTimeoutMs: 3000,
  /** `state`: printable ASCII up to this length. */
  stateLength: 1024,
  redirectUriLength: 2048,
  /** Redirect and post-logout URIs one registration may hold. */
  urisPerClient: 10,
  clientNameLength: 100,
  /** Clients one account may own (POST /oauth/clients and dynamic registration together). */
  clientsPerOwner: 50,
  /** The most entries one page of GET /oauth/clients or GET /oauth/grants holds. */
  pageSize: 100,
  authorizationCodeLifetimeSeconds: 600,
  /** RFC 9126 §2.2 expires_in: how long a pushed request waits for the browser to bring it. */
  pushedRequestLifetimeSeconds: 60,
  /** A pushed request a browser brought: how long the person has to sign in and consent. */
  pushedRequestOpenSeconds: 600,
  deviceCodeLifetimeSeconds: 600,
  /** A client assertion or request object may not live longer than this (its exp from now; a request object's iat before now). */
  jwtLifetimeSeconds: 600,
  /** How far a client's clock may be off when its JWTs' exp, nbf and iat are checked. */
  jwtClockToleranceSeconds: 30,
  /** RFC 9449 §11.1: how old a DPoP proof's iat may be (its jti is remembered that long). */
  dpopProofLifetimeSeconds: 300,
  /** A DPoP server nonce is good for this window and the next (DPOP_NONCES=on). */
  dpopNonceWindowSeconds: 300,
  /** RFC 8628 §3.5: slow_down adds this to the polling interval. */
  slowDownSeconds: 5,
  /** RFC 9068 access tokens cannot be recalled from the APIs that check them alone: kept short. */
  jwtAccessTokenLifetimeSeconds: 600,
  /** Resources an operator may register (each instance keeps them all in memory), and scopes per resource. */
  resources: 100,
  scopesPerResource: 50,
  /** The lifetimes a resource may give its access tokens, in seconds. */
  resourceTokenLifetimeMin: 60,
  resourceTokenLifetimeMax: 86_400,
  /** Token exchange rules an operator may set (each names a client and what it may get). */
  exchangePolicies: 1000,
  /** RFC 8693 / ID-JAG: an ID-JAG this server issues lives this long, and one it takes may live at most this long. */
  idJagLifetimeSeconds: 300,
} as const;

/**
 * Authorization parameters with a limit of their own, enforced with the rest (oauth.parameters.ts)
 * and stated in the OpenAPI document: a nonce is a random value, a login hint an email address, ACR
 * values and UI locales short lists. Every other parameter has LIMITS.parameterLength.
 */
export const PARAMETER_LENGTHS: Readonly<Record<string, number>> = {
  request: LIMITS.requestObjectLength,
  request_uri: LIMITS.requestUriLength,
  // RFC 8693 and RFC 7523: tokens and assertions, JWTs among them.
  subject_token: LIMITS.requestObjectLength,
  actor_token: LIMITS.requestObjectLength,
  assertion: LIMITS.requestObjectLength,
  state: LIMITS.stateLength,
  dpop_jkt: JWK_THUMBPRINT_LENGTH,
  scope: 200,
  nonce: 1000,
  login_hint: MAX_EMAIL_LENGTH,
  acr_values: 100,
  ui_locales: 100,
};

/** The longest value a parameter may have. */
export const maxLengthOf = (name: string): number =>
  Object.prototype.hasOwnProperty.call(PARAMETER_LENGTHS, name) ? PARAMETER_LENGTHS[name] : LIMITS.parameterLength;

/** State: printable ASCII, at most LIMITS.stateLength characters. */
export const STATE_VALUE = new RegExp(`^[\\x20-\\x7e]{1,${LIMITS.stateLength}}$`);

/** A space-separated list of scopes (this server's, or a named resource's own), as a regular expression for documents. */
export const SCOPE_LIST_PATTERN = `^${SCOPE_TOKEN.source.slice(1, -1)}( ${SCOPE_TOKEN.source.slice(1, -1)})*$`;

/**
 * The scope to grant for a requested one, or null when it is invalid: made of this server's scopes
 * and `extra` (a named resource's own). Absent means the default, or with a resource all of its own.
 */
export function grantedScope(requested: string | undefined, extra: readonly string[] = []): string[] | null {
  const values = requested?.split(' ').filter(Boolean) ?? [];
  if (values.length === 0) return extra.length > 0 ? [...extra] : [...DEFAULT_SCOPE];
  const unique = [...new Set(values)];
  return unique.every((scope) => scope in SCOPE_DEFINITIONS || extra.includes(scope)) ? unique : null;
}

export const SCOPE_ERROR = `scope must be made of ${SCOPES.join(', ')}`;

/**
 * The scope of a renewed token (RFC 6749 §6): the requested one if it is within what was granted,
 * all of it when none is requested, and null when the request would widen it.
 */
export function narrowedScope(granted: readonly string[], requested: string | undefined): string[] | null {
  const values = requested?.split(' ').filter(Boolean) ?? [];
  if (values.length === 0) return [...granted];
  const unique = [...new Set(values)];
  return unique.every((scope) => granted.includes(scope)) ? unique : null;
}
