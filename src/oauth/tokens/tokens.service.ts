// Token lookups outside the grant flows: the protected resource, RFC 7009 revocation and RFC 7662
// introspection. A client may revoke or introspect only the tokens issued to it.
import { sha256 } from '../../common/crypto';
import { SignalledCache } from '../../common/signalled-cache';
import type { ClientDocument } from '../clients/clients.model';
import { DPOP_TOKEN_TYPE } from '../protocol';
import { looksLikeJwt, type JwtAccessTokens, type VerifiedAccessToken } from './jwt-access-tokens.service';
import * as tokensDao from './tokens.dao';
import type { TokenDocument } from './tokens.model';

/**
 * Access tokens looked up recently, by hash. Every deletion of tokens raises the signal that empties
 * it, so a revoked token is refused at once on the instance that revoked it and within a second on
 * the others. Unknown tokens are not kept: a guessed token costs a read, and no memory.
 */
export type AccessTokenCache = SignalledCache<TokenDocument>;

export function createAccessTokenCache(): AccessTokenCache {
  return new SignalledCache(tokensDao.tokensRevoked, { maxEntries: 10_000, ttlMs: 60_000 });
}

function findAccessToken(hash: string, cache: AccessTokenCache | undefined): Promise<TokenDocument | null> {
  const load = () => tokensDao.findTokenByAccessHash(hash);
  return cache ? cache.getOrLoad(hash, load, (doc) => doc.accessTokenExpiresAt.getTime() - Date.now()) : load();
}

/** The stored access token if it is live (known, unexpired, not revoked), else null. */
async function liveAccessToken(token: string, cache?: AccessTokenCache): Promise<TokenDocument | null> {
  const doc = await findAccessToken(sha256(token), cache);
  return doc && doc.accessTokenExpiresAt > new Date() ? doc : null;
}

/** What a live access token lets its bearer do at this server's own APIs. */
export interface AccessGrant {
  scope: string[];
  clientId: string;
  /** Absent for a client acting for itself. */
  userId?: string;
  /** RFC 9449: the DPoP key it is bound to. */
  jkt?: string;
  /** What the authorization's `claims` parameter asked userinfo for (opaque tokens only). */
  claims?: TokenDocument['claims'];
}

/**
 * An access token for this server's own APIs, live, or null: a JWT by its signature and audience
 * (RFC 9068 §4; no database read, so a revoked one works here until it expires), an opaque one by
 * its record (refused when it is for another resource).
 */
export async function ownApiGrant(
  token: string,
  context: { issuer: string; jwts: JwtAccessTokens; cache?: AccessTokenCache },
): Promise<AccessGrant | null> {
  if (looksLikeJwt(token)) {
    const verified = await context.jwts.verify(token);
    if (!verified || !verified.audience.includes(context.issuer)) return null;
    const { scope, clientId, userId, jkt } = verified;
    return { scope, clientId, userId, jkt };
  }
  const doc = await liveAccessToken(token, context.cache);
  if (!doc || (doc.resource !== undefined && doc.resource !== context.issuer)) return null;
  return { scope: doc.accessScope ?? doc.scope, clientId: doc.clientId, userId: doc.userId, jkt: doc.jkt, claims: doc.claims };
}

interface FoundToken {
  doc: TokenDocument;
  kind: 'access_token' | 'refresh_token';
}

async function findToken(token: string, hint: string | undefined, cache?: AccessTokenCache): Promise<FoundToken | null> {
  const hash = sha256(token);
  const lookups = [
    async () => findAccessToken(hash, cache).then((doc) => doc && { doc, kind: 'access_token' as const }),
    async () => tokensDao.findTokenByRefreshHash(hash).then((doc) => doc && { doc, kind: 'refresh_token' as const }),
  ];
  // The hint only decides which lookup goes first (RFC 7009 §2.1).
  if (hint === 'refresh_token') lookups.reverse();
  for (const lookup of lookups) {
    const found = await lookup();
    if (found) return found;
  }
  return null;
}

/**
 * A client's own JWT access token (no record stands for it) of this client, verified: what revocation
 * and introspection know of it. RFC 9068 §2.2 makes `sub` the client for these.
 */
async function unrecordedJwt(client: ClientDocument, token: string, jwts: JwtAccessTokens): Promise<VerifiedAccessToken | null> {
  const verified = await jwts.verify(token);
  return verified && verified.clientId === client._id && verified.userId === undefined ? verified : null;
}

/**
 * Revokes an access token (its pair) or a refresh token (its whole family); unknown tokens are
 * ignored. A client's own JWT access token is remembered as revoked until it expires: introspection
 * says so, while the APIs that check it by its signature alone accept it until then.
 */
export async function revoke(client: ClientDocument, token: string, hint: string | undefined, jwts: JwtAccessTokens): Promise<void> {
  const found = await findToken(token, hint);
  if (!found) {
    const unrecorded = looksLikeJwt(token) ? await unrecordedJwt(client, token, jwts) : null;
    if (unrecorded) await tokensDao.revokeJwt(unrecorded.jti, unrecorded.expiresAt);
    return;
  }
  if (found.doc.clientId !== client._id) return;
  if (found.kind === 'refresh_token') await tokensDao.deleteFamily(found.doc.familyId);
  else await tokensDao.deleteToken(found.doc._id);
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
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export async function introspect(
  client: ClientDocument,
  token: string,
  hint: string | undefined,
  context: { jwts: JwtAccessTokens; cache?: AccessTokenCache },
): Promise<Introspection> {
  const found = await findToken(token, hint, context.cache);
  if (!found) {
    const unrecorded = looksLikeJwt(token) ? await unrecordedJwt(client, token, context.jwts) : null;
    if (!unrecorded || (await tokensDao.isJwtRevoked(unrecorded.jti))) return { active: false };
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
  return {
    active: true,
    scope: (access ? (doc.accessScope ?? doc.scope) : doc.scope).join(' '),
    client_id: doc.clientId,
    token_type: access ? (doc.jkt ? DPOP_TOKEN_TYPE : 'Bearer') : 'refresh_token',
    exp: seconds(expiresAt),
    iat: seconds(doc.issuedAt),
    ...(doc.userId ? { sub: doc.userId } : {}),
    ...(doc.jkt && access ? { cnf: { jkt: doc.jkt } } : {}),
    ...(doc.resource && access ? { aud: doc.resource } : {}),
  };
}

/** Everything issued to a person ends (they were deleted, or changed their password). */
export const endForUser = (userId: string): Promise<void> => tokensDao.deleteForUser(userId);

/** Everything issued to a client ends (it was deleted). */
export const endForClient = (clientId: string): Promise<void> => tokensDao.deleteForClient(clientId);

/** Everything issued to a person for one client ends (they revoked the connected application). */
export const endForUserAndClient = (userId: string, clientId: string): Promise<void> => tokensDao.deleteForUserAndClient(userId, clientId);
