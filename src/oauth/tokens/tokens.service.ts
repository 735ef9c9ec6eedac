// Token lookups outside the grant flows: the protected resource, RFC 7009 revocation and RFC 7662
// introspection. A client may revoke or introspect only the tokens issued to it.
import { sha256 } from '../../common/crypto';
import { SignalledCache } from '../../common/signalled-cache';
import type { ClientDocument } from '../clients/clients.model';
import { DPOP_TOKEN_TYPE } from '../protocol';
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
export async function liveAccessToken(token: string, cache?: AccessTokenCache): Promise<TokenDocument | null> {
  const doc = await findAccessToken(sha256(token), cache);
  return doc && doc.accessTokenExpiresAt > new Date() ? doc : null;
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

/** Revokes an access token (its pair) or a refresh token (its whole family); unknown tokens are ignored. */
export async function revoke(client: ClientDocument, token: string, hint: string | undefined): Promise<void> {
  const found = await findToken(token, hint);
  if (!found || found.doc.clientId !== client._id) return;
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
}

export async function introspect(
  client: ClientDocument,
  token: string,
  hint: string | undefined,
  cache?: AccessTokenCache,
): Promise<Introspection> {
  const found = await findToken(token, hint, cache);
  if (!found || found.doc.clientId !== client._id) return { active: false };
  const { doc, kind } = found;
  const expiresAt = kind === 'access_token' ? doc.accessTokenExpiresAt : doc.refreshTokenExpiresAt;
  if (!expiresAt || expiresAt <= new Date()) return { active: false };
  const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
  return {
    active: true,
    scope: doc.scope.join(' '),
    client_id: doc.clientId,
    token_type: kind === 'access_token' ? (doc.jkt ? DPOP_TOKEN_TYPE : 'Bearer') : 'refresh_token',
    exp: seconds(expiresAt),
    iat: seconds(doc.issuedAt),
    ...(doc.userId ? { sub: doc.userId } : {}),
    ...(doc.jkt && kind === 'access_token' ? { cnf: { jkt: doc.jkt } } : {}),
  };
}

/** Everything issued to a person ends (they were deleted, or changed their password). */
export const endForUser = (userId: string): Promise<void> => tokensDao.deleteForUser(userId);

/** Everything issued to a client ends (it was deleted). */
export const endForClient = (clientId: string): Promise<void> => tokensDao.deleteForClient(clientId);

/** Everything issued to a person for one client ends (they revoked the connected application). */
export const endForUserAndClient = (userId: string, clientId: string): Promise<void> => tokensDao.deleteForUserAndClient(userId, clientId);
