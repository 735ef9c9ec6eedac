// RFC 7591 dynamic client registration and RFC 7592 reading and deleting a registration. The client
// metadata is checked here (the RFC's error codes, not the users' validation format); a registration
// access token, shown once and stored as a hash, manages the registration afterwards.
import { timingSafeEqual } from 'node:crypto';
import { releaseHits } from '../../common/rate-limit';
import { readBody } from '../../common/request-fields';
import { Refusal } from '../../common/refusals';
import { isIP } from 'node:net';
import { randomToken, seal, sha256 } from '../../common/crypto';
import { isPrivateAddress } from '../../common/guarded-fetch';
import { CLIENT_SECRET_PURPOSE, type JwtContext } from './client-assertions.service';
import {
  ASSERTION_ALGORITHM_RULE,
  BACKCHANNEL_RULE,
  CHANGEABLE_METADATA_FIELDS,
  CLIENT_METADATA,
  JWKS_URI_RULE,
  invalid,
  isWebAddress,
  redirectUriError,
} from './client-metadata';

export { CHANGEABLE_METADATA_FIELDS, RegistrationError } from './client-metadata';
import { publicKeysOf } from './client-keys.service';
import {
  ASSERTION_ALGORITHMS,
  isAssertionMethod,
  DEFAULT_CLIENT_AUTH_METHOD,
  DEFAULT_REGISTRATION_GRANTS,
  FAPI_ALGORITHMS,
  FAPI_GRANTS,
  FAPI_SIGNING_ALGORITHM,
  PUBLIC_CLIENT_GRANTS,
  RESPONSE_TYPE_GRANTS,
  allowsResponseType,
  RESPONSE_TYPES,
  type ApplicationType,
  type ClientAuthMethod,
  type GrantType,
  type ResponseType,
} from '../protocol';
import { webOriginsOf } from './client-origins.service';
import * as clientsDao from './clients.dao';
import type { ClientDocument, RegisteredMetadata } from './clients.model';
import { insertUnused, insertWithinCap, removeClient, update, type ClientDetails, type ClientRemovedHook } from './clients.service';

/** A registration as RFC 7591 §3.2.1 answers it: the stored metadata (RegisteredMetadata) under its own names, and the rest. */
export interface ClientMetadata extends RegisteredMetadata {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: number;
  registration_access_token?: string;
  registration_client_uri: string;
  client_name: string;
  client_uri?: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  grant_types: GrantType[];
  response_types: string[];
  token_endpoint_auth_method: ClientAuthMethod;
}

/** How the client wants what this server signs for it: one of SIGNING_ALGORITHMS each. */
export const SIGNING_METADATA = [
  'id_token_signed_response_alg',
  'userinfo_signed_response_alg',
  'authorization_signed_response_alg',
] as const;

/** The client's own pages (RFC 7591 §2): http(s) addresses the consent page links to (and shows the logo of). */
export const PAGE_METADATA = ['logo_uri', 'policy_uri', 'tos_uri'] as const;
/**
 * An address this server will call (jwks_uri, backchannel_logout_uri): https on a host that is not a
 * private address; outside production (`allowPrivate`) http and loopback too. Names are checked again
 * when fetched (common/guarded-fetch.ts), on the address they resolve to.
 */
function isCallableAddress(value: unknown, allowPrivate: boolean): value is string {
  if (!isWebAddress(value)) return false;
  if (allowPrivate) return true;
  const url = new URL(value);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return url.protocol === 'https:' && (isIP(host) === 0 || !isPrivateAddress(host));
}

type Metadata = ReturnType<typeof readBody<typeof CLIENT_METADATA>>;

/**
 * The client's keys and the algorithms it signs with (RFC 7591 §2, OIDC Dynamic Registration §2):
 * `jwks` or `jwks_uri` (never both; private_key_jwt needs one), and algorithms this server checks.
 */
function readKeyMetadata(input: Metadata, authMethod: ClientAuthMethod, allowPrivate: boolean): RegisteredMetadata {
  const metadata: RegisteredMetadata = {};
  if (input.jwks !== undefined) metadata.jwks = { keys: publicKeysOf(input.jwks) };
  if (input.jwks_uri !== undefined) {
    if (!isCallableAddress(input.jwks_uri, allowPrivate)) throw invalid(JWKS_URI_RULE);
    metadata.jwks_uri = input.jwks_uri;
  }
  if (authMethod === 'private_key_jwt' && !metadata.jwks && !metadata.jwks_uri) throw invalid('private_key_jwt needs jwks or jwks_uri');
  const signing = input.token_endpoint_auth_signing_alg;
  if (signing !== undefined) {
    const allowed: readonly string[] = isAssertionMethod(authMethod) ? ASSERTION_ALGORITHMS[authMethod] : [];
    if (!allowed.includes(signing)) throw invalid(ASSERTION_ALGORITHM_RULE);
    metadata.token_endpoint_auth_signing_alg = signing;
  }
  const requestAlg = input.request_object_signing_alg;
  if (requestAlg !== undefined) {
    if (requestAlg.startsWith('HS') && authMethod !== 'client_secret_jwt') throw invalid('HS256 request objects need client_secret_jwt');
    metadata.request_object_signing_alg = requestAlg;
  }
  // OIDC Dynamic Client Registration §2: each an address this server may call, its fragment (the client's own) set aside.
  const requestUris = input.request_uris;
  const uncallable = requestUris?.find((uri) => !isCallableAddress(uri.split('#', 1)[0], allowPrivate));
  if (uncallable !== undefined) throw invalid(`request_uris has a value this server does not accept: ${uncallable.slice(0, 200)}`);
  if (requestUris) metadata.request_uris = requestUris;
  if (input.require_pushed_authorization_requests !== undefined)
    metadata.require_pushed_authorization_requests = input.require_pushed_authorization_requests;
  if (input.require_signed_request_object !== undefined) {
    if (input.require_signed_request_object && requestAlg === 'none')
      throw invalid('require_signed_request_object does not go with request_object_signing_alg none');
    metadata.require_signed_request_object = input.require_signed_request_object;
  }
  return metadata;
}

/** OpenID Connect Back-Channel Logout 1.0 §2.2: where to post logout tokens (https; http on loopback outside production). */
function readLogoutMetadata(input: Metadata, allowPrivate: boolean): RegisteredMetadata {
  const metadata: RegisteredMetadata = {};
  const uri = input.backchannel_logout_uri;
  if (uri !== undefined) {
    if (!isCallableAddress(uri, allowPrivate)) throw invalid(BACKCHANNEL_RULE);
    metadata.backchannel_logout_uri = uri;
  }
  if (input.backchannel_logout_session_required !== undefined)
    metadata.backchannel_logout_session_required = input.backchannel_logout_session_required;
  return metadata;
}

/**
 * OIDC Dynamic Client Registration §2's redirect rules for a client that states its type: a web client
 * using the implicit grant registers https addresses only, never on localhost. A native client's
 * private-use schemes and http loopback addresses are what every client may register; its https
 * addresses (claimed ones, RFC 8252 §7.2) are kept too. A registration that states no type keeps the
 * rules every client has (docs/decisions.md, "application_type").
 */
function applicationTypeProblem(type: ApplicationType, redirectUris: readonly string[], grants: readonly GrantType[]): string | null {
  if (type !== 'web' || !grants.includes('implicit')) return null;
  const bad = redirectUris.find((uri) => {
    const url = new URL(uri);
    return url.protocol !== 'https:' || url.hostname === 'localhost';
  });
  return bad === undefined
    ? null
    : `A web client using the implicit grant registers https addresses not on localhost: ${bad.slice(0, 200)}`;
}

/**
 * The checked metadata of a registration request (or of a client's metadata document): each member as
 * CLIENT_METADATA reads it, then how they go together.
 */
export function readClientMetadata(body: unknown, allowPrivate: boolean) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('The body must be a JSON object of client metadata');
  if ('jwks' in body && 'jwks_uri' in body) throw invalid('Send jwks or jwks_uri, not both');
  const input = readBody(CLIENT_METADATA, [], body);
  const authMethod = input.token_endpoint_auth_method ?? DEFAULT_CLIENT_AUTH_METHOD;
  const grants = input.grant_types ?? [...DEFAULT_REGISTRATION_GRANTS];
  if (authMethod === 'none' && !grants.every((grant) => PUBLIC_CLIENT_GRANTS.includes(grant))) {
    throw invalid(`A public client (token_endpoint_auth_method none) may use only ${PUBLIC_CLIENT_GRANTS.join(', ')}`);
  }
  const responseTypes = input.response_types ?? (grants.includes('authorization_code') ? ['code'] : []);
  const missing = responseTypes.find((type) => !allowsResponseType(grants, type));
  if (missing) throw invalid(`response_type ${missing} needs the grant types ${RESPONSE_TYPE_GRANTS[missing].join(' and ')}`);
  const redirectUris = input.redirect_uris ?? [];
  if (responseTypes.length > 0 && redirectUris.length === 0)
    throw redirectUriError('redirect_uris is required for the code and implicit flows');
  const metadata: RegisteredMetadata = {};
  if (input.application_type !== undefined) {
    const problem = applicationTypeProblem(input.application_type, redirectUris, grants);
    if (problem) throw redirectUriError(problem);
    metadata.application_type = input.application_type;
  }
  if (input.scope !== undefined) metadata.scope = input.scope;
  for (const field of [...PAGE_METADATA, ...SIGNING_METADATA]) {
    const value = input[field];
    if (value !== undefined) Object.assign(metadata, { [field]: value });
  }
  // OIDC Dynamic Client Registration §2: "The URI MUST use the https scheme", in development too.
  const initiate = input.initiate_login_uri;
  if (initiate !== undefined) metadata.initiate_login_uri = initiate;
  Object.assign(metadata, readKeyMetadata(input, authMethod, allowPrivate), readLogoutMetadata(input, allowPrivate));
  if (input.fapi_profile !== undefined) applyFapiProfile(input.fapi_profile, { authMethod, grants, responseTypes, metadata });
  return {
    authMethod,
    grants,
    responseTypes,
    redirectUris,
    postLogoutRedirectUris: input.post_logout_redirect_uris ?? [],
    name: input.client_name ?? 'Unnamed application',
    website: input.client_uri,
    metadata,
  };
}

/**
 * FAPI 2.0 Security Profile (final) for a client that asks for it: private_key_jwt (§5.3.2.1-6), no
 * implicit or password grant and the code response type only (§5.3.2.2), PS256, ES256 or EdDSA for
 * what it signs and ES256 for its ID tokens (§5.4), and every authorization request pushed (§5.3.2.2-2).
 * `fapi2-message-signing` also signs every request (a request object at PAR, RFC 9101 §10.5) and gets
 * its responses signed (JARM, ES256): FAPI 2.0 Message Signing §5.3 and §5.4.
 */
function applyFapiProfile(
  profile: unknown,
  client: { authMethod: ClientAuthMethod; grants: GrantType[]; responseTypes: ResponseType[]; metadata: RegisteredMetadata },
): void {
  if (client.authMethod !== 'private_key_jwt') throw invalid('A FAPI 2.0 client authenticates with private_key_jwt');
  if (!client.grants.every((grant) => FAPI_GRANTS.includes(grant)))
    throw invalid(`A FAPI 2.0 client may use only ${FAPI_GRANTS.join(', ')}`);
  if (!client.responseTypes.every((type) => type === 'code')) throw invalid('A FAPI 2.0 client uses the code response type only');
  const { metadata } = client;
  const fapiSigned = (alg: string | undefined) => alg === undefined || (FAPI_ALGORITHMS as readonly string[]).includes(alg);
  if (!fapiSigned(metadata.token_endpoint_auth_signing_alg) || !fapiSigned(metadata.request_object_signing_alg))
    throw invalid(`A FAPI 2.0 client signs with ${FAPI_ALGORITHMS.join(', ')}`);
  if (SIGNING_METADATA.some((field) => metadata[field] === 'RS256'))
    throw invalid(`A FAPI 2.0 client gets what this server signs for it with ${FAPI_SIGNING_ALGORITHM}`);
  metadata.fapi_profile = profile as RegisteredMetadata['fapi_profile'];
  metadata.require_pushed_authorization_requests = true;
  if (profile === 'fapi2-message-signing') {
    if (metadata.require_signed_request_object === false)
      throw invalid('A FAPI 2.0 Message Signing client signs its requests (require_signed_request_object)');
    metadata.require_signed_request_object = true;
  }
  metadata.id_token_signed_response_alg ??= FAPI_SIGNING_ALGORITHM;
  metadata.authorization_signed_response_alg ??= FAPI_SIGNING_ALGORITHM;
}

function toMetadata(client: ClientDocument, issuer: string): ClientMetadata {
  const grants = client.grants;
  return {
    client_id: client._id,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    registration_client_uri: `${issuer}/oauth/register/${encodeURIComponent(client._id)}`,
    client_name: client.name,
    ...(client.website ? { client_uri: client.website } : {}),
    redirect_uris: client.redirectUris ?? [client.redirectUri],
    post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
    grant_types: grants,
    response_types: RESPONSE_TYPES.filter((type) => allowsResponseType(grants, type)),
    token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? DEFAULT_CLIENT_AUTH_METHOD,
    ...client.metadata,
  };
}

/**
 * Registers a client for its owner (none for an operator's registration, which no person's cap or
 * deletion touches); the secret and the registration access token are in this answer only.
 */
/** A registration without a token (REGISTRATION=open): until when it may wait for its first token, and the cap on those waiting. */
export interface OpenRegistration {
  unusedUntil: Date;
  cap: number;
  now: Date;
}

export async function register(
  ownerId: string | undefined,
  body: unknown,
  context: JwtContext,
  open?: OpenRegistration,
): Promise<ClientMetadata> {
  const issuer = context.issuer;
  const metadata = readClientMetadata(body, context.allowPrivate);
  if (open && metadata.authMethod !== 'none')
    throw invalid('Without an initial access token only public clients register: token_endpoint_auth_method none, with PKCE');
  const clientSecret = metadata.authMethod === 'none' || metadata.authMethod === 'private_key_jwt' ? undefined : randomToken();
  const registrationToken = randomToken();
  const client: ClientDocument = {
    _id: randomToken(16),
    secretHash: clientSecret && sha256(clientSecret),
    ...(clientSecret &&
      metadata.authMethod === 'client_secret_jwt' && {
        secretSealed: seal(clientSecret, context.sealingSecret, CLIENT_SECRET_PURPOSE),
      }),
    name: metadata.name,
    website: metadata.website ?? '',
    redirectUri: metadata.redirectUris[0] ?? '',
    redirectUris: metadata.redirectUris,
    postLogoutRedirectUris: metadata.postLogoutRedirectUris,
    grants: metadata.grants,
    tokenEndpointAuthMethod: metadata.authMethod,
    metadata: metadata.metadata,
    ...(metadata.authMethod === 'none' && { webOrigins: webOriginsOf(metadata.redirectUris) }),
    registrationTokenHash: sha256(registrationToken),
    ...(ownerId !== undefined && { ownerId }),
    ...(open && { unusedUntil: open.unusedUntil }),
    createdAt: new Date(),
  };
  if (open) await insertUnused(client, open.cap, open.now);
  else await insertWithinCap(client);
  return {
    ...toMetadata(client, issuer),
    ...(clientSecret ? { client_secret: clientSecret, client_secret_expires_at: 0 } : {}),
    registration_access_token: registrationToken,
  };
}

/** A client's registration as RFC 7591 shows it, for the operator (no registration token needed); null when there is none. */
export async function metadataOf(clientId: string, issuer: string): Promise<ClientMetadata | null> {
  const client = await clientsDao.findClient(clientId);
  return client && toMetadata(client, issuer);
}

/** What an operator may change of a registration (the console's edit form, the admin API's PATCH), by RFC 7591's names. */
export const CHANGEABLE_METADATA = Object.keys(CHANGEABLE_METADATA_FIELDS) as (keyof typeof CHANGEABLE_METADATA_FIELDS)[];
export type RegistrationChanges = Partial<Record<(typeof CHANGEABLE_METADATA)[number], unknown>>;

/**
 * Changes a client's name, website, redirect URIs or grants, each checked as a registration checks it
 * (an operator may also allow the password grant, which nobody registers for themselves); null when
 * there is no such client. Throws RegistrationError naming the first field refused.
 */
export async function change(clientId: string, changes: RegistrationChanges): Promise<ClientDetails | null> {
  const input = readBody(CHANGEABLE_METADATA_FIELDS, [], changes);
  const { client_name: name, client_uri: website, redirect_uris: redirectUris, grant_types: grants } = input;
  try {
    return await update(clientId, {
      ...(name !== undefined && { name }),
      ...(website !== undefined && { website }),
      ...(redirectUris && { redirect_uris: redirectUris }),
      ...(grants && { grants }),
    });
  } catch (err) {
    // A public client asked for a grant it may not use.
    if (err instanceof Refusal) throw invalid(err.message);
    throw err;
  }
}

/** The client a registration access token manages, or null (unknown client and wrong token alike). */
async function managed(clientId: string, registrationToken: string): Promise<ClientDocument | null> {
  const client = await clientsDao.findClient(clientId);
  if (!client?.registrationTokenHash) return null;
  const presented = Buffer.from(sha256(registrationToken));
  const stored = Buffer.from(client.registrationTokenHash);
  return presented.length === stored.length && timingSafeEqual(presented, stored) ? client : null;
}

export async function read(clientId: string, registrationToken: string, issuer: string): Promise<ClientMetadata | null> {
  const client = await managed(clientId, registrationToken);
  return client && toMetadata(client, issuer);
}

/** Deletes the registration and every token and code issued to the client; false for a wrong token. */
export async function remove(clientId: string, registrationToken: string, ended: ClientRemovedHook): Promise<boolean> {
  const client = await managed(clientId, registrationToken);
  if (!client) return false;
  const removed = await removeClient(clientId, ended);
  // An open registration deleted unused gives its slot of the cap back.
  if (removed && client.unusedSlot) await releaseHits([client.unusedSlot]);
  return removed;
}
