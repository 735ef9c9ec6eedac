// Seed 000's token endpoints: a signed access token plus a single-use refresh token for a correct
// email and password, and a new pair for a valid access token presented with its refresh token.
import { ACCESS_TOKEN_LIFETIME_SECONDS, type AccessTokenClaims, type AccessTokens } from '../common/access-tokens';
import { randomToken, sha256 } from '../common/crypto';
import { normalizeEmail } from '../common/email';
import { InvalidRequestError } from '../common/errors';
import { signInFailures } from '../common/metrics';
import { hashPassword, needsRehash, verifyPassword } from '../common/passwords';
import { throttled } from '../db/sweeper';
import * as usersService from '../users/users.service';
import type { UserRecord } from '../users/users.types';
import * as refreshGrantsDao from './refresh-grants.dao';
import { ensureAttemptAllowed, recordFailure, type SignInLimits } from './sign-in-limits';
import { credentialsChanged, type VerifiedCredentialsCache } from './verified-credentials.cache';

// What other features need to check passwords the way this one does.
export { signInLimits, type SignInLimits } from './sign-in-limits';
export { VerifiedCredentialsCache } from './verified-credentials.cache';

// A deleted user or a new password ends every refresh grant of seed 000 at once, and every
// verification the caches of all instances remember.
usersService.onAccessEnded(refreshGrantsDao.removeForUser);
usersService.onAccessEnded(() => credentialsChanged.raise());

/** A password check: the email as typed, the password, and the client address it came from. */
export interface PasswordAttempt {
  email: string;
  password: string;
  address: string;
}

export interface VerifyOptions {
  /** The failed-attempt budget; null when rate limits are off. */
  limits: SignInLimits | null;
  cache?: VerifiedCredentialsCache;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

/** Expired grants are deleted at most once a minute, piggybacking on token issuing. */
const sweepExpiredGrants = throttled(60_000, refreshGrantsDao.removeExpired);

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
  });
  // The refresh token is only good while its access token is: after that the seed says log in again.
  const expiresAt = new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000);
  await refreshGrantsDao.insert({ _id: refreshKey, userId: user._id, tokenHash: sha256(refreshToken), expiresAt });
  await sweepExpiredGrants(now);
  return { accessToken, refreshToken };
}

/**
 * Returns the id of the user with this email and password, or null. Every password check of the
 * server comes here, and over the failed-attempt budget it throws TooManyRequestsError before looking
 * (even a right password is refused then); each failure counts. Without a cache hit the password is
 * verified even for an unknown email, so both failures take the same time; a hash made with older
 * parameters is upgraded after a successful verification.
 */
export async function verifyCredentials(attempt: PasswordAttempt, { limits, cache }: VerifyOptions): Promise<string | null> {
  const email = normalizeEmail(attempt.email);
  const { password } = attempt;
  const budget = { email, address: attempt.address };
  await ensureAttemptAllowed(limits, budget);
  const cached = await cache?.lookup(email, password);
  if (cached?.userId) return cached.userId;
  const credentials = await usersService.findCredentials(email);
  const storedHash = credentials?.password;
  if (!(await verifyPassword(storedHash, password)) || !credentials || storedHash === undefined) {
    signInFailures.inc();
    await recordFailure(limits, budget);
    return null;
  }
  if (needsRehash(storedHash)) await usersService.upgradePasswordHash(credentials._id, await hashPassword(password));
  if (cached) cache!.remember(email, password, credentials._id, cached.generation);
  return credentials._id;
}

export async function login(accessTokens: AccessTokens, attempt: PasswordAttempt, limits: SignInLimits | null): Promise<TokenPair> {
  const userId = await verifyCredentials(attempt, { limits });
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
