// Token lookups outside the grant flows: the protected resource, RFC 7009 revocation and RFC 7662
// introspection. A client may revoke or introspect only the tokens issued to it.
import { parseBasicAuthorization } from '../common/basic-auth';
import { sha256 } from '../common/crypto';
import * as clientsService from './clients.service';
import * as oauthDao from './oauth.dao';
import type { ClientDocument, TokenDocument } from './oauth.model';
import { OAuthErrorResponse } from './oauth.errors';
import type { Parameters } from './oauth.parameters';

/** Client authentication by HTTP Basic or by client_id/client_secret parameters, never both. */
export async function authenticateClient(parameters: Parameters, authorization: string | undefined): Promise<ClientDocument> {
  const basic = authorization ? parseBasicAuthorization(authorization) : null;
  if (basic && (parameters.client_id || parameters.client_secret)) {
    throw new OAuthErrorResponse('invalid_request', 'Use one client authentication method, not two');
  }
  const clientId = basic?.name ?? parameters.client_id;
  const clientSecret = basic?.password ?? parameters.client_secret;
  const client = clientId && clientSecret ? await clientsService.authenticate(clientId, clientSecret) : null;
  if (!client) throw new OAuthErrorResponse('invalid_client', 'Client authentication failed');
  return client;
}

interface FoundToken {
  doc: TokenDocument;
  kind: 'access_token' | 'refresh_token';
}

async function findToken(token: string, hint: string | undefined): Promise<FoundToken | null> {
  const hash = sha256(token);
  const lookups = [
    async () => oauthDao.findTokenByAccessHash(hash).then((doc) => doc && { doc, kind: 'access_token' as const }),
    async () => oauthDao.findTokenByRefreshHash(hash).then((doc) => doc && { doc, kind: 'refresh_token' as const }),
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
  if (found.kind === 'refresh_token') await oauthDao.deleteFamily(found.doc.familyId);
  else await oauthDao.deleteToken(found.doc._id);
}

export interface Introspection {
  active: boolean;
  scope?: string;
  client_id?: string;
  token_type?: string;
  exp?: number;
  iat?: number;
  sub?: string;
}

export async function introspect(client: ClientDocument, token: string, hint: string | undefined): Promise<Introspection> {
  const found = await findToken(token, hint);
  if (!found || found.doc.clientId !== client._id) return { active: false };
  const { doc, kind } = found;
  const expiresAt = kind === 'access_token' ? doc.accessTokenExpiresAt : doc.refreshTokenExpiresAt;
  if (!expiresAt || expiresAt <= new Date()) return { active: false };
  const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
  return {
    active: true,
    scope: doc.scope.join(' '),
    client_id: doc.clientId,
    token_type: kind === 'access_token' ? 'Bearer' : 'refresh_token',
    exp: seconds(expiresAt),
    iat: seconds(doc.issuedAt),
    ...(doc.userId ? { sub: doc.userId } : {}),
  };
}
