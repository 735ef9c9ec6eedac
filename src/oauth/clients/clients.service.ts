// Registered client applications: the secret is shown once at registration and stored as a hash.
import { Refusal } from '../../common/refusals';
import { timingSafeEqual } from 'node:crypto';
import { basicClientCredentials } from '../../common/authorization';
import { NotFoundError } from '../../common/errors';
import { randomToken, sha256 } from '../../common/crypto';
import { invalidClient, invalidRequest, OAuthErrorResponse } from '../oauth.errors';
import { limitRule, releaseHits, reserve, TooManyRequestsError, type LimitRule } from '../../common/rate-limit';
import type { OAuthParameters } from '../oauth.parameters';
import {
  CLIENT_ASSERTION_TYPE,
  DEFAULT_CLIENT_AUTH_METHOD,
  isAssertionMethod,
  DEFAULT_CLIENT_GRANTS,
  LIMITS,
  PUBLIC_CLIENT_GRANTS,
  type ClientAuthMethod,
  type GrantType,
} from '../protocol';
import jwt from 'jsonwebtoken';
import type { Config } from '../../config';
import { verifyAssertion, type JwtContext } from './client-assertions.service';
import { clientOriginsChanged } from './client-origins.service';
import * as clientsDao from './clients.dao';
import type { ClientKeySets } from './client-keys.service';
import type { ClientRegistry } from './clients.store';
import type { ClientDocument } from './clients.model';

/** What removing a client must also end: its tokens, codes and remembered consents (wired in createApp). */
export type ClientRemovedHook = (clientId: string) => Promise<void>;

/**
 * RFC 8252 §7.1: a native app's private-use scheme is a reversed domain name, so it has a dot; one that
 * begins like a scheme browsers run or read locally (javascript.x:, data.x:) is never one.
 */
const PRIVATE_USE_SCHEME = /^(?!(javascript|data|vbscript|file|blob|about)\.)[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

/**
 * Whether a value can be a redirect URI at all, as its parsed form (or null): RFC 6749 §3.1.2's absolute
 * URI without a fragment, http(s) or a native app's private-use scheme, with no user name or password
 * and no control characters or spaces (URL parsing would drop CR/LF silently). javascript:, data: and
 * the like never are. The parsed form is for checking; redirect URIs are stored and compared exactly
 * as written (redirectUriMatches).
 */
export function normalizeRedirectUri(value: unknown): string | null {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (typeof value !== 'string' || value.length > LIMITS.redirectUriLength || /[\x00-\x20\x7f#]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const web = url.protocol === 'http:' || url.protocol === 'https:';
  if ((!web && !PRIVATE_USE_SCHEME.test(url.protocol)) || url.username || url.password) return null;
  return url.href;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The rule isRegistrableRedirectUri applies, as messages and the API reference state it. */
export const REDIRECT_URI_RULE =
  "an absolute http(s) URL without a fragment (https, or http on a loopback address), or a native app's " +
  'private-use scheme such as com.example.app:/callback; never with a user name, password, spaces or control characters';

/** What every registration accepts (RFC 8252 §7): https, http on loopback only, or a private-use scheme. */
export function isRegistrableRedirectUri(value: unknown): boolean {
  const normalized = normalizeRedirectUri(value);
  if (!normalized) return false;
  const url = new URL(normalized);
  return url.protocol === 'https:' || (url.protocol === 'http:' ? LOOPBACK_HOSTS.has(url.hostname) : true);
}

/** A redirect to the person's own computer (a loopback host): any program running there may receive it. */
export function isLoopbackRedirect(uri: string): boolean {
  const normalized = normalizeRedirectUri(uri);
  return normalized !== null && LOOPBACK_HOSTS.has(new URL(normalized).hostname);
}

export function redirectUrisOf(client: ClientDocument): string[] {
  return client.redirectUris ?? [client.redirectUri];
}

/** An http redirect to a loopback IP literal: the address with its port taken out, else null. */
const LOOPBACK_IP_REDIRECT = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::\d{1,5})?([/?].*)?$/;
const withoutLoopbackPort = (uri: string): string | null => {
  const match = LOOPBACK_IP_REDIRECT.exec(uri);
  return match && `http://${match[1]}${match[2] ?? ''}`;
};

/**
 * Whether a redirect URI sent with a request is a registered one: the same string exactly (RFC 9700
 * §2.1, no normalisation: `HTTPS://`, `:443` and `/x/../` are other strings), with RFC 8252 §7.3's one
 * exception, a loopback IP redirect (`http://127.0.0.1/...`, `http://[::1]/...`), whose port a native
 * app picks when it asks.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const loopback = withoutLoopbackPort(registered);
  return loopback !== null && loopback === withoutLoopbackPort(requested);
}

/** The redirect URI a request may be sent back to, as it named it, when it matches a registered one; null for none. */
export function registeredRedirectUri(client: ClientDocument, redirectUri: string): string | null {
  if (normalizeRedirectUri(redirectUri) === null) return null;
  return redirectUrisOf(client).some((registered) => redirectUriMatches(registered, redirectUri)) ? redirectUri : null;
}

/** RP-initiated logout: the post_logout_redirect_uri a request names when it matches a registered one, or null. */
export function registeredPostLogoutRedirectUri(client: ClientDocument, uri: string): string | null {
  if (normalizeRedirectUri(uri) === null) return null;
  return (client.postLogoutRedirectUris ?? []).some((registered) => redirectUriMatches(registered, uri)) ? uri : null;
}

export const isPublic = (client: ClientDocument): boolean => client.tokenEndpointAuthMethod === 'none';

export interface ClientRegistration {
  name: string;
  website: string;
  redirect_uri: string;
  grants?: GrantType[];
}

export interface ClientView {
  client_id: string;
  name: string;
  website: string;
  redirect_uri: string;
  grants: GrantType[];
}

function toView(client: ClientDocument): ClientView {
  return { client_id: client._id, name: client.name, website: client.website, redirect_uri: client.redirectUri, grants: client.grants };
}

function newClient(clientId: string, clientSecret: string, registration: ClientRegistration, ownerId?: string): ClientDocument {
  return {
    _id: clientId,
    secretHash: sha256(clientSecret),
    name: registration.name,
    website: registration.website,
    redirectUri: registration.redirect_uri,
    grants: [...new Set(registration.grants ?? DEFAULT_CLIENT_GRANTS)],
    ownerId,
    createdAt: new Date(),
  };
}

export async function register(
  ownerId: string | undefined,
  registration: ClientRegistration,
): Promise<ClientView & { client_secret: string }> {
  const clientSecret = randomToken();
  const client = newClient(randomToken(16), clientSecret, registration, ownerId);
  await insertWithinCap(client);
  const { client_id, ...rest } = toView(client);
  return { client_id, client_secret: clientSecret, ...rest };
}

/** Creates or replaces a client whose id and secret the caller chose (the demo seed's well-known client). */
export async function put(clientId: string, clientSecret: string, registration: ClientRegistration): Promise<void> {
  await clientsDao.putClient(newClient(clientId, clientSecret, registration));
}

/** One page of the owner's clients (`page` from 0), oldest first. */
export async function listOwnedBy(ownerId: string, page = 0, limit: number = LIMITS.pageSize): Promise<ClientView[]> {
  return (await clientsDao.pageOfClientsOf(ownerId, page, limit)).map(toView);
}

/** The account already owns LIMITS.clientsPerOwner clients. */
export class TooManyClientsError extends Refusal {
  constructor() {
    super('cap', `An account may own at most ${LIMITS.clientsPerOwner} clients; delete one first`);
  }
}

/** As many clients registered without a token wait for their first token as the open registration's cap allows. */
export class TooManyUnusedClientsError extends Refusal {
  constructor(cap: number) {
    super('cap', `${cap} applications registered without a token are waiting to be used: try again later, or register with a token`);
  }
}

/**
 * Stores a new client, within its owner's cap: written first and counted after, so registrations
 * racing on any number of instances never leave more than the cap (one over it is deleted again).
 */
export async function insertWithinCap(client: ClientDocument): Promise<void> {
  await clientsDao.insertClient(client);
  if (client.ownerId !== undefined && (await clientsDao.countClientsOf(client.ownerId)) > LIMITS.clientsPerOwner) {
    await clientsDao.deleteClient(client._id);
    throw new TooManyClientsError();
  }
  if (client.webOrigins) await clientOriginsChanged();
}

/** The cap on clients registered without a token and not yet used: one of `cap` slots each, held until used or deleted. */
const unusedRule = (cap: number, lifetimeMs: number): LimitRule => ({ name: 'registration:unused', limit: cap, windowMs: lifetimeMs });

/**
 * Stores a client registered without a token (REGISTRATION=open) in one of the cap's slots, taken
 * atomically however many registrations race on however many instances (common/rate-limit.ts);
 * the slot is given back when the client is first used, and lapses when it is deleted unused.
 */
export async function insertUnused(client: ClientDocument, cap: number, now: Date): Promise<void> {
  const lifetimeMs = client.unusedUntil!.getTime() - now.getTime();
  const slot = await reserve([{ rule: unusedRule(cap, lifetimeMs), key: 'open' }], now).catch((err: unknown) => {
    if (err instanceof TooManyRequestsError) throw new TooManyUnusedClientsError(cap);
    throw err;
  });
  try {
    await clientsDao.insertClient({ ...client, unusedSlot: slot.ids[0] });
  } catch (err) {
    await slot.release();
    throw err;
  }
  if (client.webOrigins) await clientOriginsChanged();
}

/** Clients swept at most per pass of the open registration's clean-up. */
const UNUSED_SWEEP_BATCH = 100;

/**
 * Deletes clients registered without a token that got none in time (REGISTRATION=open), with what
 * was issued to them (codes); how many went. A client used meanwhile is kept.
 */
export async function sweepUnused(now: Date, ended: ClientRemovedHook): Promise<number> {
  let removed = 0;
  for (const clientId of await clientsDao.unusedPast(now, UNUSED_SWEEP_BATCH)) {
    if (!(await clientsDao.deleteUnused(clientId, now))) continue;
    await Promise.all([ended(clientId), clientOriginsChanged()]);
    removed += 1;
  }
  return removed;
}

/** A client registered without a token got its first token: kept from now on, its slot of the cap given back. */
export async function markUsed(client: ClientDocument): Promise<void> {
  if (client.unusedUntil === undefined) return;
  await clientsDao.markUsed(client._id);
  if (client.unusedSlot) await releaseHits([client.unusedSlot]);
}

/**
 * Deletes the client (given an owner, only when it is theirs) and revokes every token, code and
 * remembered consent issued to it; false when there was no such client.
 */
export async function removeClient(clientId: string, ended: ClientRemovedHook, ownerId?: string): Promise<boolean> {
  if (!(await clientsDao.deleteClient(clientId, ownerId))) return false;
  await Promise.all([ended(clientId), clientOriginsChanged()]);
  return true;
}

export async function remove(ownerId: string, clientId: string, ended: ClientRemovedHook): Promise<void> {
  if (!(await removeClient(clientId, ended, ownerId))) throw new NotFoundError(`Client ${clientId} not found`);
}

/** What an operator sees of a client (npm run oauth:client): everything but the hashes. */
export interface ClientDetails extends ClientView {
  redirect_uris: string[];
  /** Clients registered before RFC 7591 accept client_secret_basic and client_secret_post. */
  token_endpoint_auth_method: ClientAuthMethod;
  /** Registered through POST /oauth/register, with a registration access token. */
  dynamically_registered: boolean;
  owner_id: string | null;
  created_at: string;
  /** Present (true) only for a client the operator let use the admin API. */
  operator_access?: true;
}

function toDetails(client: ClientDocument): ClientDetails {
  return {
    ...toView(client),
    redirect_uris: redirectUrisOf(client),
    token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? DEFAULT_CLIENT_AUTH_METHOD,
    dynamically_registered: client.registrationTokenHash !== undefined,
    owner_id: client.ownerId ?? null,
    created_at: client.createdAt.toISOString(),
    ...(client.operatorAccess ? { operator_access: true as const } : {}),
  };
}

export async function listAll(ownerId?: string): Promise<ClientDetails[]> {
  const clients = ownerId === undefined ? await clientsDao.listAllClients() : await clientsDao.listClientsOf(ownerId);
  return clients.map(toDetails);
}

/** Clients whose name or id starts with `q` (every client without it), in id order, a page at a time (the operator's console). */
export async function search(q: string | undefined, after: string | undefined, limit: number): Promise<ClientDetails[]> {
  return (await clientsDao.searchClients(q, after, limit)).map(toDetails);
}

export async function details(clientId: string): Promise<ClientDetails | null> {
  const client = await clientsDao.findClient(clientId);
  return client && toDetails(client);
}

export interface ClientChanges {
  name?: string;
  website?: string;
  /** Replaces every registered redirect URI; the first is the default one. */
  redirect_uris?: string[];
  grants?: GrantType[];
  /** Only from the command line: whether it may get the `admin` scope. */
  operator_access?: boolean;
}

/** Changes a client's registration (already validated); null when there is no such client. */
export async function update(clientId: string, changes: ClientChanges): Promise<ClientDetails | null> {
  const client = await clientsDao.findClient(clientId);
  if (!client) return null;
  if (changes.grants && isPublic(client) && !changes.grants.every((grant) => PUBLIC_CLIENT_GRANTS.includes(grant))) {
    throw new Refusal('invalid', `A public client may use only ${PUBLIC_CLIENT_GRANTS.join(', ')}`);
  }
  const updated = await clientsDao.updateClient(clientId, {
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.website !== undefined && { website: changes.website }),
    ...(changes.redirect_uris && { redirectUri: changes.redirect_uris[0], redirectUris: changes.redirect_uris }),
    ...(changes.grants && { grants: [...new Set(changes.grants)] }),
    ...(changes.operator_access !== undefined && { operatorAccess: changes.operator_access }),
  });
  return updated && toDetails(updated);
}

/**
 * A new secret for a confidential client; the old one stops working (at once here, within a second on
 * running servers, which keep clients they read). Tokens already issued
 * stay valid. null when there is no such client; refused for a public client, which has no secret.
 */
export async function rotateSecret(clientId: string): Promise<string | null> {
  const client = await clientsDao.findClient(clientId);
  if (!client) return null;
  if (isPublic(client)) throw new Refusal('invalid', 'A public client (token_endpoint_auth_method none) has no secret');
  const clientSecret = randomToken();
  return (await clientsDao.updateClient(clientId, { secretHash: sha256(clientSecret) })) ? clientSecret : null;
}

export {
  cachedClientOrigins,
  cachedClients,
  databaseClientOrigins,
  registeredClients,
  fetchedClientKeySets,
  type ClientOriginStore,
  type ClientRegistry,
} from './clients.store';
export type { ClientKeySets } from './client-keys.service';

/**
 * Secret-based client authentication: a confidential client with its right secret (compared in
 * constant time), or a public client that sent none.
 */
function secretMatches(client: ClientDocument, clientSecret: string | undefined): boolean {
  if (clientSecret === undefined || !client.secretHash) return clientSecret === undefined && isPublic(client);
  const presented = Buffer.from(sha256(clientSecret));
  const stored = Buffer.from(client.secretHash);
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** A client's credentials as a request presents them (RFC 6749 §2.3.1, RFC 7523 §2.2), not yet checked. */
export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
  /** A client assertion (private_key_jwt, client_secret_jwt). */
  assertion?: string;
}

/** The client an assertion names (its iss, else sub), read before it is checked, to find its keys. */
function assertedClientId(assertion: string): string | undefined {
  const payload = jwt.decode(assertion, { json: true });
  const named = payload?.iss ?? payload?.sub;
  return typeof named === 'string' ? named : undefined;
}

/**
 * The client's id and secret from HTTP Basic (client_secret_basic, form-decoded as RFC 6749 §2.3.1
 * says) or from the client_id/client_secret parameters (client_secret_post). A client_id parameter
 * beside Basic only identifies the client (RFC 8628 §3.4 clients send it): it must name the same
 * client; a secret in both places is two authentication methods, which is refused.
 */
export function credentialsOf(parameters: OAuthParameters, authorization: string | undefined): ClientCredentials {
  const basic = basicClientCredentials(authorization);
  if (parameters.client_assertion !== undefined || parameters.client_assertion_type !== undefined) {
    if (parameters.client_assertion_type !== CLIENT_ASSERTION_TYPE)
      throw invalidRequest(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`);
    if (parameters.client_assertion === undefined) throw invalidRequest('Missing parameter: client_assertion');
    if (basic || parameters.client_secret !== undefined) throw invalidRequest('Use one client authentication method, not two');
    const named = assertedClientId(parameters.client_assertion);
    if (parameters.client_id !== undefined && named !== undefined && parameters.client_id !== named) {
      throw invalidRequest('client_id does not name the client of the client assertion');
    }
    return { clientId: parameters.client_id ?? named, assertion: parameters.client_assertion };
  }
  if (!basic) return { clientId: parameters.client_id, clientSecret: parameters.client_secret };
  if (parameters.client_secret !== undefined) throw invalidRequest('Use one client authentication method, not two');
  if (parameters.client_id !== undefined && parameters.client_id !== basic.name) {
    throw invalidRequest('client_id does not name the client of the Authorization header');
  }
  return { clientId: basic.name, clientSecret: basic.password };
}

/**
 * Client authentication for the token, revocation, introspection and device endpoints; invalid_client
 * otherwise. A client registered for an assertion method authenticates only with an assertion, and
 * an assertion authenticates only such a client.
 */
export async function authenticateRequest(
  clients: ClientRegistry,
  credentials: ClientCredentials,
  context: JwtContext,
): Promise<ClientDocument> {
  let reason: string | undefined;
  const client = credentials.clientId ? await clients.find(credentials.clientId, (why) => (reason = why)) : null;
  if (!client) throw invalidClient(reason);
  const method = client.tokenEndpointAuthMethod;
  const accepted =
    credentials.assertion !== undefined || isAssertionMethod(method)
      ? credentials.assertion !== undefined &&
        isAssertionMethod(method) &&
        (await verifyAssertion(client, method, credentials.assertion, context))
      : secretMatches(client, credentials.clientSecret);
  if (!accepted) throw invalidClient();
  return client;
}

/** What checking a client's JWTs needs from the configuration and the app's key sets, for a request to `path`. */
export function jwtContext(config: Config, keySets: ClientKeySets, path?: string): JwtContext {
  return {
    keySets,
    issuer: config.publicUrl,
    endpoint: path === undefined ? undefined : `${config.publicUrl}${path}`,
    allowPrivate: !config.isProduction,
    sealingSecret: config.oauth.signingKeysSecret,
  };
}

/** Where a request to authenticate a client came: the endpoint's path (assertions' audience) and the client address. */
export interface AuthenticationAt {
  path: string;
  address: string;
}

/** Client authentication as one app does it: with its clients and fetched key sets, for a request to `at.path`. */
export type ClientAuthentication = (credentials: ClientCredentials, at: AuthenticationAt) => Promise<ClientDocument>;

/**
 * An endpoint's budgets (RATE_LIMITS): every request counts against its address; one that
 * authenticated counts against its client, and one that failed against the client and the address
 * together (issue 48, finding 2: client ids are public, so counting a client before it proved itself
 * let anyone lock it out). Either way one command, after the check.
 */
export interface ClientBudgets {
  perAddress: LimitRule;
  perClient: LimitRule;
}

/** The failures to authenticate as one client from one address, at every endpoint that counts them. */
export const clientFailureRule = (config: Pick<Config, 'limits'>): LimitRule =>
  limitRule('client-auth-failures:client+address', config.limits.clientFailuresPerAddress);

export function createClientAuthentication(
  config: Config,
  stores: { clients: ClientRegistry; clientKeySets: ClientKeySets },
  budgets?: ClientBudgets,
): ClientAuthentication {
  const check = (credentials: ClientCredentials, at: AuthenticationAt) =>
    authenticateRequest(stores.clients, credentials, jwtContext(config, stores.clientKeySets, at.path));
  if (!budgets || !config.rateLimits) return check;
  const failures = clientFailureRule(config);
  return async (credentials, at) => {
    const address = { rule: budgets.perAddress, key: at.address };
    let client: ClientDocument;
    try {
      client = await check(credentials, at);
    } catch (err) {
      // Over a budget, the refusal is the 429 (TooManyRequestsError), else invalid_client.
      if (err instanceof OAuthErrorResponse && err.error === 'invalid_client') {
        // The id named, cut so that a huge one is no key.
        await reserve([address, { rule: failures, key: `${(credentials.clientId ?? '').slice(0, 256)}|${at.address}` }]);
      }
      throw err;
    }
    await reserve([address, { rule: budgets.perClient, key: client._id }]);
    return client;
  };
}

/** See clients.dao.ts: the search key of clients stored before it (src/migrations.ts). */
export const writeMissingNameKeys = (): Promise<number> => clientsDao.writeMissingNameKeys();
