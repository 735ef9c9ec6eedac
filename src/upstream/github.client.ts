// GitHub as a provider of the upstream sign-in (docs/upstream.md): passport-github2 speaks GitHub's
// OAuth 2 (the authorization URL, the code exchange) and reads the profile, without passport's
// middleware: the upstream controller keeps the state in its cookie and checks it, as for every
// provider. userProfile is replaced so that the email list is fetched only when the profile has no
// email, only a primary *verified* address is taken, and a malformed answer fails the sign-in
// instead of throwing out of a callback. Failures come back as an UpstreamFailure (its code GitHub's
// OAuth error, or the HTTP status), never GitHub's answer.
import { Strategy as GitHubStrategy, type StrategyOptions } from 'passport-github2';
import { randomToken } from '../common/crypto';
import type { Config } from '../config';
import type { ProviderAccount } from '../users/users.types';
import { UpstreamFailure, type AuthorizationChecks } from './upstream.client';

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

interface AccountProfile {
  account: ProviderAccount;
}

class GitHubAccountStrategy extends GitHubStrategy {
  constructor(
    options: StrategyOptions,
    private readonly urls: { profile: string; emails: string },
  ) {
    // passport's verify step is not used: the upstream controller finishes the sign-in.
    super(options, () => undefined);
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
      return { account: toAccount(user, verifiedEmail) };
    })().then(
      (profile) => done(null, profile),
      (err: Error) => done(err),
    );
  }
}

/** The scopes GitHub's sign-in asks for: the profile, and the email list for a private address. */
const SCOPES = ['read:user', 'user:email'];

/** What a node-oauth failure says, as an UpstreamFailure: GitHub's OAuth error code, or the status, or the connection. */
function failureOf(err: unknown): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  const failed = err as { statusCode?: unknown; data?: unknown; code?: unknown } | null;
  if (typeof failed?.statusCode === 'number') {
    let code: unknown;
    try {
      code = (JSON.parse(String(failed.data)) as { error?: unknown }).error;
    } catch {
      code = undefined;
    }
    return new UpstreamFailure('refused', typeof code === 'string' ? code.slice(0, 100) : `HTTP ${failed.statusCode}`);
  }
  // node-oauth hands on the socket's error (ECONNREFUSED, ENOTFOUND, ...): nothing answered.
  if (typeof failed?.code === 'string') return new UpstreamFailure('unreachable', 'connection failed');
  return new UpstreamFailure('unverifiable', err instanceof Error ? err.message.slice(0, 100) : 'unknown error');
}

/** Gives up on `work` after `ms` (node-oauth sets no timeout of its own). */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UpstreamFailure('unreachable', 'timeout')), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export interface GitHubClient {
  /** Where to send the browser (its state, to keep in the state cookie). */
  start(): { url: string; checks: AuthorizationChecks };
  /** The callback (its state already checked): the code exchanged, the profile read once. */
  finish(query: { code?: string; error?: string }): Promise<ProviderAccount>;
}

/** GitHub's client from configuration, or null when GITHUB_CLIENT_ID or GITHUB_CLIENT_SECRET is unset. */
export function createGitHubClient(config: Config): GitHubClient | null {
  const { github } = config;
  if (!github.credentials) return null;
  const strategy = new GitHubAccountStrategy(
    {
      clientID: github.credentials.clientId,
      clientSecret: github.credentials.clientSecret,
      callbackURL: github.callbackUrl,
      authorizationURL: github.authorizationUrl,
      tokenURL: github.tokenUrl,
      scope: SCOPES,
    },
    { profile: github.userProfileUrl, emails: github.userEmailsUrl },
  );
  const oauth2 = (strategy as unknown as { _oauth2: OAuth2 })._oauth2;
  const timeoutMs = config.upstream.timeoutMs;
  return {
    start() {
      const state = randomToken();
      const url = oauth2.getAuthorizeUrl({ response_type: 'code', redirect_uri: github.callbackUrl, scope: SCOPES.join(','), state });
      return { url, checks: { state, nonce: '', verifier: '' } };
    },

    async finish(query) {
      // The state was checked against this browser's by the controller, as for every provider.
      if (query.error !== undefined)
        throw new UpstreamFailure(query.error === 'access_denied' ? 'denied' : 'refused', query.error.slice(0, 100));
      if (!query.code) throw new UpstreamFailure('refused', 'no code');
      const code = query.code;
      try {
        const accessToken = await within(
          timeoutMs,
          new Promise<string>((resolve, reject) =>
            oauth2.getOAuthAccessToken(code, { grant_type: 'authorization_code', redirect_uri: github.callbackUrl }, (err, token) =>
              err || !token ? reject(err ? failureOf(err) : new UpstreamFailure('refused', 'no access token')) : resolve(token),
            ),
          ),
        );
        const profile = await within(
          timeoutMs,
          new Promise<AccountProfile>((resolve, reject) =>
            strategy.userProfile(accessToken, (err, found) => (err || !found ? reject(err ?? new Error('no profile')) : resolve(found))),
          ),
        );
        return profile.account;
      } catch (err) {
        throw failureOf(err);
      }
    },
  };
}

interface OAuth2 {
  getAuthorizeUrl(params: Record<string, string>): string;
  getOAuthAccessToken: TokenRequest;
}
