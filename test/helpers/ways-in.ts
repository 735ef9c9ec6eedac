// Every way in at once: a fake GitHub and a fake OpenID provider on loopback, a mail sink, and an app
// wired to them (PUBLIC_URL http://accounts.example.test, the origin passkeyAssertion signs for).
import type { Express } from 'express';
import { testApp } from './app';
import type { MovableClock } from './clock';
import { startFakeOpenIdProvider, type FakeOpenIdProvider } from './fake-openid-provider';
import { json, startFakeUpstream, type FakeUpstream } from './fake-upstream';
import { startSmtpSink, type SmtpSink } from './smtp-sink';

export const WAYS_IN_BASE = new URL('http://accounts.example.test');
const UPSTREAM = { clientId: 'way-in-app', clientSecret: 'way-in-secret-value-1234' };

export interface WaysIn {
  app: Express;
  github: FakeUpstream;
  provider: FakeOpenIdProvider;
  sink: SmtpSink;
  /** The account GitHub answers with; a test sets it before a sign-in. */
  githubAccount: { id: number; login: string; name: string; email: string | null; avatar_url: string };
}

/** Starts the fakes and the app before the file's tests (`overrides`: more settings), stops them after. */
export function useWaysIn(clock: MovableClock, overrides: Record<string, string> = {}): WaysIn {
  const ways = {
    githubAccount: { id: 1, login: 'octo', name: 'Octo', email: 'octo@example.com', avatar_url: 'https://avatars.example.com/1' },
  } as WaysIn;
  beforeAll(async () => {
    ways.github = await startFakeUpstream((req, res) => {
      if (req.url.pathname === '/login/oauth/access_token') return json(res, 200, { access_token: 'gh-token', token_type: 'bearer' });
      if (req.headers.authorization !== 'Bearer gh-token') return json(res, 401, { message: 'Bad credentials' });
      if (req.url.pathname === '/user') return json(res, 200, ways.githubAccount);
      if (req.url.pathname === '/user/emails') return json(res, 200, []);
      json(res, 404, {});
    });
    ways.provider = await startFakeOpenIdProvider(UPSTREAM);
    ways.sink = await startSmtpSink();
    const github = ways.github.url;
    ways.app = testApp(
      {
        GITHUB_CLIENT_ID: 'gh-client-id',
        GITHUB_CLIENT_SECRET: 'gh-client-secret-value',
        GITHUB_CALLBACK_URL: 'http://127.0.0.1:3000/auth/github',
        GITHUB_AUTHORIZATION_URL: `${github}/login/oauth/authorize`,
        GITHUB_TOKEN_URL: `${github}/login/oauth/access_token`,
        GITHUB_USER_PROFILE_URL: `${github}/user`,
        GITHUB_USER_EMAILS_URL: `${github}/user/emails`,
        UPSTREAM_PROVIDERS: JSON.stringify([
          { id: 'acme', name: 'Acme ID', issuer: ways.provider.issuer, client_id: UPSTREAM.clientId, client_secret: UPSTREAM.clientSecret },
        ]),
        UPSTREAM_TIMEOUT_MS: '10000',
        SMTP_URL: ways.sink.url,
        PUBLIC_URL: WAYS_IN_BASE.origin,
        ...overrides,
      },
      { clock },
    );
  });
  afterAll(async () => {
    await ways.github.close();
    await ways.provider.close();
    await ways.sink.close();
  });
  return ways;
}
