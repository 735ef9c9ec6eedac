// The model functions @node-oauth/oauth2-server calls, backed by the DAOs. Codes and refresh tokens
// are single-use: using one inserts a "spent" marker, and presenting a spent one again revokes every
// token of its family (RFC 6819 §5.2.2.3 for refresh tokens; RFC 6749 §4.1.2 for codes).
import type {
  AuthorizationCode,
  AuthorizationCodeModel,
  Client,
  ClientCredentialsModel,
  Falsey,
  PasswordModel,
  RefreshToken,
  RefreshTokenModel,
  Token,
  User,
} from '@node-oauth/oauth2-server';
import * as authService from '../auth/auth.service';
import type { SignInLimits } from '../auth/auth.service';
import { randomToken, sha256 } from '../common/crypto';
import * as usersService from '../users/users.service';
import { throttled } from '../db/sweeper';
import * as clientsService from './clients/clients.service';
import type { ClientDocument } from './clients/clients.model';
import * as grantsDao from './grants/grants.dao';
import * as tokensDao from './tokens/tokens.dao';
import type { TokenDocument } from './tokens/tokens.model';
import { grantedScope } from './oauth.scopes';

/** The user as the library carries it; `familyId` travels from a used grant to the tokens it yields. */
export interface OAuthUser extends User {
  /** null for a client acting for itself (client_credentials). */
  id: string | null;
  familyId?: string;
  /** OpenID Connect: when the person signed in, and the nonce of the authorization request. */
  authTime?: Date;
  nonce?: string;
}

export type OAuthModel = AuthorizationCodeModel & RefreshTokenModel & PasswordModel & ClientCredentialsModel;

const sweepExpired = throttled(60_000, tokensDao.deleteExpired);

// A deleted user or a new password ends every token and code issued for the user, on every instance.
usersService.onAccessEnded(tokensDao.deleteForUser);

export function toLibraryClient(client: ClientDocument): Client {
  return { id: client._id, grants: client.grants, redirectUris: clientsService.redirectUrisOf(client) };
}

function tokenUser(doc: TokenDocument): OAuthUser {
  return { id: doc.userId ?? null, familyId: doc.familyId, authTime: doc.authTime };
}

function refreshTokenOf(refreshToken: string, doc: TokenDocument, expiresAt: Date | undefined): RefreshToken {
  return {
    refreshToken,
    refreshTokenExpiresAt: expiresAt,
    scope: doc.scope,
    client: { id: doc.clientId, grants: [] },
    user: tokenUser(doc),
  };
}

/** Stores a token pair (hashes only) and returns it with its plain values for the response. */
export async function saveToken(token: Token, client: Client, user: OAuthUser): Promise<Token> {
  const code: unknown = token.authorizationCode;
  const familyId = user.familyId ?? (typeof code === 'string' ? sha256(code) : randomToken(16));
  const now = new Date();
  await tokensDao.insertToken({
    _id: sha256(token.accessToken),
    refreshTokenHash: token.refreshToken ? sha256(token.refreshToken) : undefined,
    accessTokenExpiresAt: token.accessTokenExpiresAt!,
    refreshTokenExpiresAt: token.refreshToken ? token.refreshTokenExpiresAt : undefined,
    scope: token.scope ?? [],
    clientId: client.id,
    userId: user.id ?? undefined,
    familyId,
    issuedAt: now,
    authTime: user.authTime,
  });
  // The person's connected application is in use (nothing to do for a client acting for itself).
  if (user.id) await grantsDao.touch(user.id, client.id, now);
  await sweepExpired(now);
  return { ...token, client, user: { id: user.id, familyId, authTime: user.authTime, nonce: user.nonce } };
}

export interface OAuthModelOptions {
  /** Seconds in which a just-rotated refresh token may be presented again by its client. */
  refreshGraceSeconds: number;
}

/**
 * Graceful rotation: two tabs refreshing at once, or a retry after a lost response, present the same
 * refresh token twice within seconds. Within the grace period the second use gets a fresh pair of the
 * same family instead of revoking it; after it, a replay revokes the family as before.
 */
export function createOAuthModel(options: OAuthModelOptions): OAuthModel {
  const graceMs = options.refreshGraceSeconds * 1000;
  const inGrace = (spent: { graceUntil?: Date } | null): boolean => spent?.graceUntil !== undefined && spent.graceUntil > new Date();

  return {
    // 256 random bits, URL-safe; the library's default spends 2 KiB of randomness and a SHA-256 on each.
    generateAccessToken: async () => randomToken(),
    generateRefreshToken: async () => randomToken(),
    generateAuthorizationCode: async () => randomToken(),

    async getClient(clientId: string, clientSecret: string | null | undefined): Promise<Client | Falsey> {
      // null: no secret is needed (authorization requests). undefined: a token request without one,
      // which only public clients may make (and for a code, only with a PKCE verifier).
      const client =
        clientSecret === null ? await clientsService.find(clientId) : await clientsService.authenticate(clientId, clientSecret);
      return client ? toLibraryClient(client) : false;
    },

    saveToken,

    async getAccessToken(accessToken: string): Promise<Token | Falsey> {
      const doc = await tokensDao.findTokenByAccessHash(sha256(accessToken));
      if (!doc) return false;
      return {
        accessToken,
        accessTokenExpiresAt: doc.accessTokenExpiresAt,
        scope: doc.scope,
        client: { id: doc.clientId, grants: [] },
        user: tokenUser(doc),
      };
    },

    async validateScope(_user: User, _client: Client, scope?: string[]): Promise<string[] | Falsey> {
      return grantedScope(scope) ?? false;
    },

    async verifyScope(token: Token, scope: string[]): Promise<boolean> {
      return scope.every((wanted) => token.scope?.includes(wanted));
    },

    async saveAuthorizationCode(code, client, user): Promise<AuthorizationCode> {
      const { authTime, nonce } = user as OAuthUser;
      await tokensDao.insertCode({
        _id: sha256(code.authorizationCode),
        clientId: client.id,
        userId: (user as OAuthUser).id!,
        redirectUri: code.redirectUri,
        scope: code.scope ?? [],
        expiresAt: code.expiresAt,
        codeChallenge: code.codeChallenge,
        codeChallengeMethod: code.codeChallengeMethod,
        nonce,
        authTime,
      });
      return { ...code, client, user };
    },

    async getAuthorizationCode(authorizationCode: string): Promise<AuthorizationCode | Falsey> {
      const hash = sha256(authorizationCode);
      const reusedFamily = await tokensDao.spentFamily(hash);
      if (reusedFamily) {
        await tokensDao.deleteFamily(reusedFamily);
        return false;
      }
      const code = await tokensDao.findCode(hash);
      if (!code) return false;
      return {
        authorizationCode,
        expiresAt: code.expiresAt,
        redirectUri: code.redirectUri,
        scope: code.scope,
        client: { id: code.clientId, grants: [] },
        user: { id: code.userId, familyId: hash, authTime: code.authTime, nonce: code.nonce },
        codeChallenge: code.codeChallenge,
        codeChallengeMethod: code.codeChallengeMethod,
      };
    },

    async revokeAuthorizationCode(code: AuthorizationCode): Promise<boolean> {
      const hash = sha256(code.authorizationCode);
      return tokensDao.markSpent(hash, hash, code.expiresAt);
    },

    async getRefreshToken(refreshToken: string): Promise<RefreshToken | Falsey> {
      const hash = sha256(refreshToken);
      const doc = await tokensDao.findTokenByRefreshHash(hash);
      if (doc) return refreshTokenOf(refreshToken, doc, doc.refreshTokenExpiresAt);
      const spent = await tokensDao.findSpent(hash);
      if (!spent) return false;
      // Within the grace period a rotated token continues its family as its newest token stands.
      const newest = inGrace(spent) ? await tokensDao.newestRefreshable(spent.familyId) : null;
      if (newest) return refreshTokenOf(refreshToken, newest, spent.expiresAt);
      await tokensDao.deleteFamily(spent.familyId);
      return false;
    },

    /** Called by the refresh grant to rotate: the old refresh token becomes spent. */
    async revokeToken(token: RefreshToken): Promise<boolean> {
      const hash = sha256(token.refreshToken);
      const user = token.user as OAuthUser;
      const expiresAt = token.refreshTokenExpiresAt ?? new Date(Date.now() + 24 * 3600 * 1000);
      const graceUntil = graceMs > 0 ? new Date(Date.now() + graceMs) : undefined;
      if (!(await tokensDao.markSpent(hash, user.familyId!, expiresAt, graceUntil))) {
        // Used before: within the grace period (a concurrent or repeated refresh) the family lives on.
        if (inGrace(await tokensDao.findSpent(hash))) return true;
        await tokensDao.deleteFamily(user.familyId!);
        return false;
      }
      const doc = await tokensDao.findTokenByRefreshHash(hash);
      if (doc) await tokensDao.dropRefreshToken(doc._id);
      return true;
    },

    async getUser(): Promise<OAuthUser | Falsey> {
      // Password checks need the client address for the sign-in budget: see withPasswordCheck.
      return false;
    },

    async getUserFromClient(): Promise<OAuthUser> {
      return { id: null };
    },
  };
}

/** The model for one token request: the password grant checks against the sign-in budget of its address. */
export function withPasswordCheck(model: OAuthModel, limits: SignInLimits | null, address: string): OAuthModel {
  return {
    ...model,
    async getUser(username: string, password: string): Promise<OAuthUser | Falsey> {
      const userId = await authService.verifyCredentials({ email: username, password, address }, { limits });
      return userId ? { id: userId } : false;
    },
  };
}
