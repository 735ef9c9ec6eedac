// Seed 000's token endpoints: a signed access token plus a single-use refresh token for a correct
// email and password, and a new pair for a valid access token presented with its refresh token.
import { ACCESS_TOKEN_LIFETIME_SECONDS, type AccessTokenClaims, type AccessTokens } from '../common/access-tokens';
import { randomToken, sha256 } from '../common/crypto';
import { InvalidRequestError } from '../common/errors';
import type { PasswordAttempt, PasswordVerifier } from '../sign-in/sign-in.service';
import * as usersService from '../users/users.service';
import type { UserRecord } from '../users/users.types';
import * as refreshGrantsDao from './refresh-grants.dao';

export type { PasswordAttempt, PasswordVerifier } from '../sign-in/sign-in.service';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

/** The user is the current record, so a refreshed token carries the email and permissionFlags of now. */
async function issuePair(accessTokens: AccessTokens, user: UserRecord): Promise<TokenPair> {
  const refreshKey = randomToken(16);
  const refreshToken = randomToken();
  const now = new Date();
  const accessToken = accessTokens.sign({
    userId: user._id,
    // Only accounts with a password reach here, and those always have an email.
    email: user.email ?? '',
    permissionFlags: user.permissionFlags,
    refreshKey,
    credentials: usersService.credentialsStampOf(user),
  });
  // The refresh token is only good while its access token is: after that the seed says log in again.
  const expiresAt = new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000);
  await refreshGrantsDao.insert({ _id: refreshKey, userId: user._id, tokenHash: sha256(refreshToken), expiresAt });
  return { accessToken, refreshToken };
}

export async function login(accessTokens: AccessTokens, attempt: PasswordAttempt, verify: PasswordVerifier): Promise<TokenPair> {
  const userId = await verify(attempt);
  if (!userId) throw new InvalidRequestError(['Invalid email and/or password']);
  return issuePair(accessTokens, await usersService.getById(userId));
}

export async function refresh(accessTokens: AccessTokens, claims: AccessTokenClaims, refreshToken: string): Promise<TokenPair> {
  const invalid = new InvalidRequestError(['Invalid refresh token']);
  const grant = await refreshGrantsDao.consume(claims.refreshKey, claims.userId, sha256(refreshToken), new Date());
  if (!grant) throw invalid;
  // null for a user deleted since the token was issued.
  const user = await usersService.findById(grant.userId);
  if (!user) throw invalid;
  return issuePair(accessTokens, user);
}
