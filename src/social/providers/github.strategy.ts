// GitHub sign-in through passport-github2. userProfile is replaced so that the email list is fetched
// only when the profile has no email, only a primary *verified* address is taken, and a malformed
// answer fails the sign-in instead of throwing out of a callback.
import { Strategy as GitHubStrategy, type StrategyOptions } from 'passport-github2';
import type { VerifyFunction } from 'passport-oauth2';
import type { Profile } from 'passport';
import type { Config } from '../../config';
import type { ProviderAccount } from '../../users/users.types';
import type { SocialProvider } from '../social.types';
import { signedCookieStateStore } from '../provider-state';

interface GitHubUser {
  id?: unknown;
  login?: unknown;
  name?: unknown;
  email?: unknown;
  avatar_url?: unknown;
}

interface GitHubEmail {
  email?: unknown;
  primary?: unknown;
  verified?: unknown;
}

/** The oauth library fails with `{ statusCode, data }`; only the status goes into the message. */
function requestFailure(err: unknown): Error {
  if (err instanceof Error) return err;
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return new Error(typeof status === 'number' ? `GitHub answered ${status}` : 'the request to GitHub failed');
}

type OAuth2Get = (url: string, accessToken: string, callback: (err: unknown, body?: string | Buffer) => void) => void;
type TokenRequest = (
  code: string,
  params: Record<string, unknown>,
  callback: (err: unknown, accessToken?: string, refreshToken?: string, results?: Record<string, unknown>) => void,
) => void;

const asString = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

function parseJson<T>(body: string | Buffer | undefined): T | undefined {
  try {
    return JSON.parse(String(body)) as T;
  } catch {
    return undefined;
  }
}

/** GitHub's single `name` becomes firstName and lastName at its first space; the login stands in for a missing name. */
export function toAccount(user: GitHubUser, verifiedEmail: string | undefined): ProviderAccount {
  const name = asString(user.name) ?? asString(user.login);
  const space = name?.indexOf(' ') ?? -1;
  return {
    providerId: String(user.id),
    email: (asString(user.email) ?? verifiedEmail)?.toLowerCase(),
    // Only the address taken from the email list is known to be GitHub's verified primary one.
    emailVerified: asString(user.email) === undefined && verifiedEmail !== undefined,
    firstName: space > 0 ? name!.slice(0, space) : name,
    lastName: space > 0 ? name!.slice(space + 1) : undefined,
    avatarUrl: asString(user.avatar_url),
  };
}

interface AccountProfile extends Profile {
  account: ProviderAccount;
}

class GitHubAccountStrategy extends GitHubStrategy {
  constructor(
    options: StrategyOptions,
    verify: VerifyFunction,
    private readonly urls: { profile: string; emails: string },
  ) {
    super(options, verify);
    // GitHub answers a wrong client secret or code with 200 and an OAuth error in the body, which the
    // oauth library takes for an answer without a token: handed on as the error it is, passport makes
    // it a TokenError carrying GitHub's code (incorrect_client_credentials, bad_verification_code).
    const oauth2 = (this as unknown as { _oauth2: { getOAuthAccessToken: TokenRequest } })._oauth2;
    const request = oauth2.getOAuthAccessToken.bind(oauth2);
    oauth2.getOAuthAccessToken = (code, params, callback) =>
      request(code, params, (err, accessToken, refreshToken, results) => {
        if (!err && !accessToken && typeof results?.error === 'string') return callback({ statusCode: 400, data: JSON.stringify(results) });
        callback(err, accessToken, refreshToken, results);
      });
  }

  userProfile(accessToken: string, done: (err?: Error | null, profile?: AccountProfile) => void): void {
    const get = (url: string) =>
      new Promise<string | Buffer | undefined>((resolve, reject) => {
        (this as unknown as { _oauth2: { get: OAuth2Get } })._oauth2.get(url, accessToken, (err, body) =>
          err ? reject(requestFailure(err)) : resolve(body),
        );
      });
    (async () => {
      const user = parseJson<GitHubUser>(await get(this.urls.profile));
      if (!user || (typeof user.id !== 'number' && typeof user.id !== 'string') || String(user.id) === '') {
        throw new Error('GitHub answered with an unreadable profile');
      }
      let verifiedEmail: string | undefined;
      if (!asString(user.email)) {
        const emails = parseJson<GitHubEmail[]>(await get(this.urls.emails));
        const primary = Array.isArray(emails) ? emails.find((entry) => entry?.primary === true && entry.verified === true) : undefined;
        verifiedEmail = asString(primary?.email);
      }
      const account = toAccount(user, verifiedEmail);
      return { provider: 'github', id: account.providerId, displayName: account.firstName ?? '', account };
    })().then(
      (profile) => done(null, profile),
      (err: Error) => done(err),
    );
  }
}

export const githubProvider: SocialProvider = {
  name: 'github',
  label: 'GitHub',
  settings: (config) => (config.github.missing ? [config.github.missing] : ['GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET']),
  createStrategy(config: Config, verify) {
    const { github } = config;
    if (!github.credentials) return null;
    const options = {
      clientID: github.credentials.clientId,
      clientSecret: github.credentials.clientSecret,
      callbackURL: github.callbackUrl,
      authorizationURL: github.authorizationUrl,
      tokenURL: github.tokenUrl,
      scope: ['read:user', 'user:email'],
      // A random state in a signed cookie, accepted on one callback only (provider-state.ts).
      store: signedCookieStateStore({ provider: 'github', secret: config.sessionSecret, secure: config.isProduction }),
    };
    return new GitHubAccountStrategy(
      // @types/passport-github2 does not know passport-oauth2's `store` option.
      options as unknown as StrategyOptions,
      (_accessToken: string, _refreshToken: string, profile: AccountProfile, done: (err: unknown, user?: string | false) => void) =>
        verify(profile.account, done),
      { profile: github.userProfileUrl, emails: github.userEmailsUrl },
    );
  },
};
