// Token lookups outside the grant flows: the protected resource, RFC 7009 revocation and RFC 7662
// introspection. A client may revoke or introspect only the tokens issued to it. Whether a token is
// alive is one question for every format and every API (`liveGrant`): known and unexpired, not
// revoked (a person's: its family still there), its client still here (and still the operator's, for
// the admin scope), its person here, not disabled, with no password change since it was issued and
// the application not revoked by them since. Nothing of that needs a search of the tokens: a
// revocation deletes one family record or writes on the person's, and the dead tokens lie until the
// expiry journal sweeps them.
import { sha256 } from '../../common/crypto';
import { SignalledCache } from '../../common/signalled-cache';
import type { UserStore } from '../../users/users.service';
import { appRevokedAt, isActive, recordAppRevoked as usersRevoked } from '../../users/users.service';
import type { UserRecord } from '../../users/users.types';
import type { ClientDocument } from '../clients/clients.model';
import type { ClientRegistry } from '../clients/clients.store';
import { ADMIN_SCOPE, DPOP_TOKEN_TYPE, LIMITS } from '../protocol';
import type { AccessGrant, AccessTokenFormats, SelfContainedToken, TokenRecords } from './formats';
import * as tokensDao from './tokens.dao';
import type { Actor, TokenDocument } from './tokens.model';

/**
 * Access tokens looked up recently: their records by hash, and whether a client's own JWT (which has
 * no record) was revoked, by jti. Every revocation raises the signal that empties both, so a revoked
 * token is refused at once on the instance that revoked it and within a second on the others.
 * Unknown tokens are not kept: a guessed token costs a read, and no memory.
 */
export interface AccessTokenCache {
  records: SignalledCache<TokenDocument>;
  jwtRevoked: SignalledCache<boolean>;
}

export function createAccessTokenCache(): AccessTokenCache {
  return {
    records: new SignalledCache(tokensDao.tokensRevoked, { maxEntries: 10_000, ttlMs: 60_000 }),
    jwtRevoked: new SignalledCache(tokensDao.tokensRevoked, { maxEntries: 10_000, ttlMs: 60_000 }),
  };
}

/** The record if its family is there: a person's token lives only while its family does (tokens.model.ts). */
async function withFamily(doc: TokenDocument | null): Promise<TokenDocument | null> {
  if (!doc || doc.userId === undefined) return doc;
  return (await tokensDao.findFamily(doc.familyId)) ? doc : null;
}

function findAccessToken(hash: string, cache: AccessTokenCache | undefined): Promise<TokenDocument | null> {
  const load = async () => withFamily(await tokensDao.findTokenByAccessHash(hash));
  return cache ? cache.records.getOrLoad(hash, load, (doc) => doc.accessTokenExpiresAt.getTime() - Date.now()) : load();
}

/** The record a refresh token names, if its family is there. */
export async function findRefreshToken(token: string, hash = sha256(token)): Promise<TokenDocument | null> {
  return withFamily(await tokensDao.findTokenByRefresh(token, hash));
}

function isJwtRevoked(jti: string, cache: AccessTokenCache | undefined): Promise<boolean> {
  const load = () => tokensDao.isJwtRevoked(jti);
  return cache ? cache.jwtRevoked.getOrLoad(jti, load).then((revoked) => revoked === true) : load();
}

/** The stored access token if it is live (known, unexpired, not revoked), else null. */
async function liveAccessToken(token: string, cache?: AccessTokenCache): Promise<TokenDocument | null> {
  const doc = await findAccessToken(sha256(token), cache);
  return doc && doc.accessTokenExpiresAt > new Date() ? doc : null;
}

/** What the formats read a token back with: its record and a revocation, through the cache. */
const recordsThrough = (cache: AccessTokenCache | undefined): TokenRecords => ({
  live: (token) => liveAccessToken(token, cache),
  revoked: (jti) => isJwtRevoked(jti, cache),
});

export type { AccessGrant } from './formats';

/** A live grant, the client it was issued to, and the person it acts for (null for a client acting for itself). */
export interface LiveGrant {
  grant: AccessGrant;
  client: ClientDocument;
  person: UserRecord | null;
}

/** What deciding whether a token is alive reads: the app's stores (cached), the token formats, the token lookups' cache. */
export interface LivenessContext {
  issuer: string;
  formats: AccessTokenFormats;
  cache?: AccessTokenCache;
  clients: ClientRegistry;
  users: UserStore;
}

/**
 * Whether what a token was issued to is still there (issue 48, findings 3 and 4): its client (and,
 * for the admin scope, the operator's leave), its person (not disabled, no password change since it
 * was issued). The client and the person (null for a client's own token); null when it is dead.
 * Both are read through the app's caches, which a change empties (at once here, within a second
 * elsewhere).
 */
async function issuedToStillThere(
  grant: Pick<AccessGrant, 'clientId' | 'userId' | 'scope' | 'issuedAt'>,
  context: Pick<LivenessContext, 'clients' | 'users'>,
): Promise<Omit<LiveGrant, 'grant'> | null> {
  const [client, person] = await Promise.all([
    context.clients.find(grant.clientId),
    grant.userId === undefined ? null : context.users.findCurrent(grant.userId),
  ]);
  if (!client || (grant.scope.includes(ADMIN_SCOPE) && client.operatorAccess !== true)) return null;
  if (grant.userId === undefined) return { client, person: null };
  return personStillGrants(person, grant) ? { client, person } : null;
}

/**
 * Whether the person still stands behind what was issued to the client at `issuedAt`: here, not
 * disabled, no password change since, and the application not revoked since (/home's Revoke).
 */
export function personStillGrants(person: UserRecord | null, grant: Pick<AccessGrant, 'clientId' | 'issuedAt'>): person is UserRecord {
  if (!isActive(person)) return false;
  // To the millisecond: a person's tokens all have records, whose time has that grain (a JWT's iat has
  // whole seconds, jwt.ts reads the record's), and a change in the second a token was issued ends it.
  const changed = person.credentialsChangedAt;
  if (changed && changed >= grant.issuedAt) return false;
  const revoked = appRevokedAt(person, grant.clientId);
  return !revoked || revoked < grant.issuedAt;
}

/**
 * An access token for this server's own APIs, alive, and its person; or null. Its format reads it
 * (a JWT by its signature and audience, RFC 9068 §4, and a person's by its record as well; an opaque
 * token by its record), then the one check for every format: what it was issued to is still there.
 * Records, revocations, clients and people are read through caches, so a token seen before costs no
 * round trip while nothing changed.
 */
export async function liveGrant(token: string, context: LivenessContext): Promise<LiveGrant | null> {
  const grant = await context.formats.grant(token, context.issuer, recordsThrough(context.cache));
  if (!grant) return null;
  const holders = await issuedToStillThere(grant, context);
  return holders && { grant, ...holders };
}

/** A person's access token as a token exchange reads its subject token (RFC 8693 §2.1). */
export interface PersonToken {
  record: TokenDocument;
  /** What the access token itself carries (a resource's own scopes, when it was for one). */
  scope: string[];
  person: UserRecord;
}

/**
 * A live access token of this server that acts for a person (any format: a person's JWT has a
 * record too), whose client and person are still there; null for anything else.
 */
export async function personToken(
  token: string,
  context: Pick<LivenessContext, 'clients' | 'users' | 'cache'>,
): Promise<PersonToken | null> {
  const record = await liveAccessToken(token, context.cache);
  if (!record || record.userId === undefined) return null;
  const scope = record.accessScope ?? record.scope;
  const holders = await issuedToStillThere({ ...record, scope }, context);
  return holders?.person ? { record, scope, person: holders.person } : null;
}

/**
 * RFC 8693 §4.1: the party an actor token names, when it is a live access token of this server (a
 * client's own, or one acting for a person): its subject and client, and whom it acted for in turn.
 */
export async function actorOf(
  token: string,
  context: Pick<LivenessContext, 'clients' | 'users' | 'cache' | 'formats'>,
): Promise<Actor | null> {
  const record = await liveAccessToken(token, context.cache);
  if (record) {
    const holders = await issuedToStillThere({ ...record, scope: record.accessScope ?? record.scope }, context);
    if (!holders) return null;
    return { sub: record.userId ?? record.clientId, client_id: record.clientId, ...(record.act && { act: record.act }) };
  }
  const own = await context.formats.unrecorded(token);
  if (!own || (await isJwtRevoked(own.jti, context.cache)) || !(await issuedToStillThere(own, context))) return null;
  return { sub: own.clientId, client_id: own.clientId };
}

interface FoundToken {
  doc: TokenDocument;
  kind: 'access_token' | 'refresh_token';
}

async function findToken(token: string, hint: string | undefined, cache?: AccessTokenCache): Promise<FoundToken | null> {
  const hash = sha256(token);
  const lookups = [
    async () => findAccessToken(hash, cache).then((doc) => doc && { doc, kind: 'access_token' as const }),
    async () => findRefreshToken(token, hash).then((doc) => doc && { doc, kind: 'refresh_token' as const }),
  ];
  // The hint only decides which lookup goes first (RFC 7009 §2.1).
  if (hint === 'refresh_token') lookups.reverse();
  for (const lookup of lookups) {
    const found = await lookup();
    if (found) return found;
  }
  return null;
}

/** A token of this client that no record stands for (a client's own JWT, RFC 9068 §2.2 makes `sub` the client). */
async function unrecordedOf(client: ClientDocument, token: string, formats: AccessTokenFormats): Promise<SelfContainedToken | null> {
  const found = await formats.unrecorded(token);
  return found && found.clientId === client._id ? found : null;
}

/**
 * Revokes an access token (its pair) or a refresh token (its whole family); unknown tokens are
 * ignored. A client's own JWT access token is remembered as revoked until it expires: introspection
 * says so, while the APIs that check it by its signature alone accept it until then.
 */
export async function revoke(client: ClientDocument, token: string, hint: string | undefined, formats: AccessTokenFormats): Promise<void> {
  const found = await findToken(token, hint);
  if (!found) {
    const unrecorded = await unrecordedOf(client, token, formats);
    if (unrecorded) await tokensDao.revokeJwt(unrecorded.jti, unrecorded.expiresAt);
    return;
  }
  if (found.doc.clientId !== client._id) return;
  // A refresh token takes its family with it (a client's own tokens have none: each is alone).
  if (found.kind === 'refresh_token' && found.doc.userId !== undefined) await tokensDao.deleteFamily(found.doc.familyId);
  await tokensDao.deleteToken(found.doc._id);
}

export interface Introspection {
  active: boolean;
  scope?: string;
  client_id?: string;
  token_type?: string;
  exp?: number;
  iat?: number;
  sub?: string;
  /** RFC 9449 §6.2: the DPoP key a bound access token is confirmed by. */
  cnf?: { jkt: string };
  /** RFC 8707: the resource an access token is for. */
  aud?: string;
  /** RFC 8693 §4.1: who acts for the person. */
  act?: Actor;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export async function introspect(
  client: ClientDocument,
  token: string,
  hint: string | undefined,
  context: Omit<LivenessContext, 'issuer'>,
): Promise<Introspection> {
  const found = await findToken(token, hint, context.cache);
  if (!found) {
    const unrecorded = await unrecordedOf(client, token, context.formats);
    if (!unrecorded || (await isJwtRevoked(unrecorded.jti, context.cache))) return { active: false };
    if (!(await issuedToStillThere(unrecorded, context))) return { active: false };
    return {
      active: true,
      scope: unrecorded.scope.join(' '),
      client_id: unrecorded.clientId,
      token_type: unrecorded.jkt ? DPOP_TOKEN_TYPE : 'Bearer',
      exp: seconds(unrecorded.expiresAt),
      iat: seconds(unrecorded.issuedAt),
      sub: unrecorded.clientId,
      aud: unrecorded.audience[0],
      ...(unrecorded.jkt ? { cnf: { jkt: unrecorded.jkt } } : {}),
    };
  }
  if (found.doc.clientId !== client._id) return { active: false };
  const { doc, kind } = found;
  const expiresAt = kind === 'access_token' ? doc.accessTokenExpiresAt : doc.refreshTokenExpiresAt;
  if (!expiresAt || expiresAt <= new Date()) return { active: false };
  const access = kind === 'access_token';
  const scope = access ? (doc.accessScope ?? doc.scope) : doc.scope;
  if (!(await issuedToStillThere({ ...doc, scope }, context))) return { active: false };
  return {
    active: true,
    scope: scope.join(' '),
    client_id: doc.clientId,
    token_type: access ? (doc.jkt ? DPOP_TOKEN_TYPE : 'Bearer') : 'refresh_token',
    exp: seconds(expiresAt),
    iat: seconds(doc.issuedAt),
    ...(doc.userId ? { sub: doc.userId } : {}),
    ...(doc.jkt && access ? { cnf: { jkt: doc.jkt } } : {}),
    ...(doc.resource && access ? { aud: doc.resource } : {}),
    ...(doc.act ? { act: doc.act } : {}),
  };
}

/**
 * Everything issued to a person ends (they were deleted, disabled, or changed their password): their
 * tokens already fail `personStillGrants`, so only their unused codes are deleted (a few, by query).
 */
export const endForUser = (userId: string): Promise<void> => tokensDao.deleteCodesForUser(userId);

/** Everything issued to a client ends (it was deleted): its tokens fail the client's check; its codes go. */
export const endForClient = (clientId: string): Promise<void> => tokensDao.deleteCodesForClient(clientId);

/** How long a token may live at most: a revocation is remembered on the person's record as long. */
export interface TokenLifetimes {
  /** Seconds, as configured (config.ts `oauth`). */
  readonly accessTokenLifetime: number;
  readonly v1AccessTokenLifetime: number;
  readonly refreshTokenLifetime: number;
}

/**
 * Everything issued to a person for one client ends (they revoked the connected application): the
 * revocation is written on the person's record, which every use of their tokens reads, and the
 * unused codes go.
 */
export async function endForUserAndClient(userId: string, clientId: string, lifetimes: TokenLifetimes, now = new Date()): Promise<void> {
  // A registered resource's tokens may have a lifetime of their own (LIMITS.resourceTokenLifetimeMax).
  const longest =
    Math.max(
      lifetimes.accessTokenLifetime,
      lifetimes.v1AccessTokenLifetime,
      lifetimes.refreshTokenLifetime,
      LIMITS.resourceTokenLifetimeMax,
    ) * 1000;
  await usersRevoked(userId, clientId, now, new Date(now.getTime() - longest));
  await tokensDao.deleteCodesForUserAndClient(userId, clientId);
  await tokensDao.tokensRevoked.raise();
}

/** See tokens.dao.ts: family records for tokens stored before them (src/migrations.ts). */
export const writeMissingFamilies = (): Promise<number> => tokensDao.writeMissingFamilies();
