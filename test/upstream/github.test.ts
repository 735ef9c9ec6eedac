import request from 'supertest';
import { SessionModel } from '../../src/session/session.model';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { json, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { approve, REDIRECT_URI, registerClient } from '../helpers/oauth';
import { enrolTotp, giveCode, totpCode } from '../helpers/factors';
import { capturingLogger } from '../helpers/logs';
import { createApp } from '../../src/app';
import { startupWarnings } from '../../src/config';
import { testConfig } from '../helpers/app';

useTestDatabase();

interface FakeAccount {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
  avatar_url: string;
}

let github: FakeUpstream;
let account: FakeAccount;
let emails: unknown;
let tokenAnswer: (res: Parameters<Parameters<FakeUpstream['handle']>[0]>[1]) => void;
let profileAnswer: ((res: Parameters<Parameters<FakeUpstream['handle']>[0]>[1]) => void) | null;

const CLIENT_ID = 'gh-client-id';
const CLIENT_SECRET = 'gh-client-secret-value';

beforeAll(async () => {
  github = await startFakeUpstream((req, res) => {
    if (req.url.pathname === '/login/oauth/access_token') return tokenAnswer(res);
    if (req.headers.authorization !== 'Bearer gh-access-token') return json(res, 401, { message: 'Bad credentials' });
    if (req.url.pathname === '/user') return profileAnswer ? profileAnswer(res) : json(res, 200, account);
    if (req.url.pathname === '/user/emails') return json(res, 200, emails);
    json(res, 404, {});
  });
});
afterAll(() => github.close());

let nextId = 1000;
beforeEach(() => {
  nextId += 1;
  account = {
    id: nextId,
    login: `octo${nextId}`,
    name: 'Mona Lisa Octocat',
    email: `octo${nextId}@example.com`,
    avatar_url: `https://avatars.example.com/${nextId}`,
  };
  emails = [];
  profileAnswer = null;
  github.requests.length = 0;
  tokenAnswer = (res) => json(res, 200, { access_token: 'gh-access-token', token_type: 'bearer', scope: 'read:user,user:email' });
});

const githubEnv = () => ({
  GITHUB_CLIENT_ID: CLIENT_ID,
  GITHUB_CLIENT_SECRET: CLIENT_SECRET,
  GITHUB_CALLBACK_URL: 'http://127.0.0.1:3000/auth/github',
  GITHUB_AUTHORIZATION_URL: `${github.url}/login/oauth/authorize`,
  GITHUB_TOKEN_URL: `${github.url}/login/oauth/access_token`,
  GITHUB_USER_PROFILE_URL: `${github.url}/user`,
  GITHUB_USER_EMAILS_URL: `${github.url}/user/emails`,
});
const app = () => testApp(githubEnv());

/** Starts a sign-in with an agent and returns it with the state GitHub would send back. */
async function start(agent = request.agent(app())) {
  const res = await agent.get('/auth/github').expect(302);
  const location = new URL(res.headers.location);
  return { agent, location, state: location.searchParams.get('state')! };
}

async function signIn(code = 'good-code') {
  const { agent, state } = await start();
  const res = await agent.get('/auth/github').query({ code, state });
  return { agent, res, state };
}

describe('GET /auth/github without a code', () => {
  it('redirects to GitHub with client_id, redirect_uri, scope and a state kept in the session', async () => {
    const first = await start();
    expect(first.location.origin + first.location.pathname).toBe(`${github.url}/login/oauth/authorize`);
    expect(Object.fromEntries(first.location.searchParams)).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: 'http://127.0.0.1:3000/auth/github',
      scope: 'read:user,user:email',
      state: expect.stringMatching(/^\S{16,}$/),
    });
    const second = await start();
    expect(second.state).not.toBe(first.state);
  });
});

describe('starting a sign-in stores nothing on the server', () => {
  it('keeps the state in a signed, HttpOnly cookie for /auth/github, and writes no session', async () => {
    const before = await SessionModel.countDocuments();
    const res = await request(app()).get('/auth/github').expect(302);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(cookies.some((cookie) => cookie.startsWith('sid='))).toBe(false);
    const state = cookies.find((cookie) => cookie.startsWith('github_state='))!;
    expect(state).toMatch(/HttpOnly/);
    expect(state).toMatch(/Path=\/auth\/github;/);
    expect(await SessionModel.countDocuments()).toBe(before);
  });

  it('refuses a state cookie that was not signed here', async () => {
    const { state } = await start();
    const res = await request(app())
      .get('/auth/github')
      .set('Cookie', `github_state=${state}.forged-signature`)
      .query({ code: 'good-code', state })
      .expect(400);
    expect(res.text).toContain('invalid_state');
  });
});

describe('GET /auth/github with code and state', () => {
  it('creates the user on the first sign-in and starts a 30-day session', async () => {
    const { agent, res } = await signIn();
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/home');
    const cookie = ([] as string[]).concat(res.headers['set-cookie']).find((c) => c.startsWith('sid='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const days = (new Date(/Expires=([^;]+)/.exec(cookie)![1]).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);

    const user = await UserModel.findOne({ github_id: String(account.id) }).lean();
    expect(user).toMatchObject({
      email: account.email,
      firstName: 'Mona',
      lastName: 'Lisa Octocat',
      avatarUrl: account.avatar_url,
      permissionFlags: 1,
    });
    expect(user).not.toHaveProperty('password');
    const home = await agent.get('/home').expect(200);
    expect(home.text).toContain('Mona Lisa Octocat');
    // The token request carried the client's credentials and the code.
    const tokenRequest = github.requests.find((r) => r.url.pathname === '/login/oauth/access_token')!;
    expect(new URLSearchParams(tokenRequest.body).get('code')).toBe('good-code');
  });

  it('finds the same user on a later sign-in after a name change, refreshing name and avatar', async () => {
    await signIn();
    const first = await UserModel.findOne({ github_id: String(account.id) }).lean();
    account.name = 'Mona Renamed';
    account.avatar_url = 'https://avatars.example.com/new';
    account.email = 'changed@example.com';
    await signIn();
    const users = await UserModel.find({ github_id: String(account.id) }).lean();
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({
      _id: first!._id,
      firstName: 'Mona',
      lastName: 'Renamed',
      avatarUrl: 'https://avatars.example.com/new',
      email: first!.email,
      __v: 1,
    });
    expect(users[0].lastName).toBe('Renamed');
  });

  it('answers 400 invalid_state when the same callback is presented again', async () => {
    const { agent, state } = await signIn();
    const replay = await agent.get('/auth/github').query({ code: 'good-code', state }).expect(400);
    expect(replay.text).toContain('invalid_state');
  });

  it('answers 400 invalid_state for a forged state, or a callback that did not start here', async () => {
    const { agent } = await start();
    expect((await agent.get('/auth/github').query({ code: 'good-code', state: 'forged' }).expect(400)).text).toContain('invalid_state');
    expect((await request(app()).get('/auth/github').query({ code: 'good-code', state: 'x' }).expect(400)).text).toContain('invalid_state');
    expect(await UserModel.countDocuments({ github_id: String(account.id) })).toBe(0);
  });

  it('takes the primary verified email from /user/emails when the profile has none', async () => {
    account.email = null;
    emails = [
      { email: `unverified${account.id}@example.com`, primary: false, verified: false },
      { email: `Primary${account.id}@Example.com`, primary: true, verified: true },
    ];
    await signIn();
    const user = await UserModel.findOne({ github_id: String(account.id) }).lean();
    expect(user!.email).toBe(`primary${account.id}@example.com`);
  });

  it('stores no email when the primary one is unverified, and never asks for emails the profile has', async () => {
    account.email = null;
    emails = [{ email: `p${account.id}@example.com`, primary: true, verified: false }];
    await signIn();
    expect(await UserModel.findOne({ github_id: String(account.id) }).lean()).not.toHaveProperty('email');

    github.requests.length = 0;
    account = { ...account, id: account.id + 500000, email: `has${account.id}@example.com` };
    await signIn();
    expect(github.requests.some((r) => r.url.pathname === '/user/emails')).toBe(false);
  });

  it.each([
    ['a zero-width space', (id: number) => `octo${id}\u200b@example.com`],
    ['a Cyrillic о among Latin letters', (id: number) => `\u043ecto${id}@example.com`],
    ['a tab', (id: number) => `octo${id}\t@example.com`],
  ])('stores no email that POST /users would refuse: %s (one email rule for every way in)', async (_case, email) => {
    account.email = email(account.id);
    await signIn();
    const user = await UserModel.findOne({ github_id: String(account.id) }).lean();
    expect(user).not.toBeNull();
    expect(user).not.toHaveProperty('email');
  });

  it('signs in without an email when the email list is unreadable', async () => {
    account.email = null;
    emails = 'not a list';
    const { res } = await signIn();
    expect(res.headers.location).toBe('/home');
    expect(await UserModel.findOne({ github_id: String(account.id) }).lean()).not.toHaveProperty('email');
  });

  it('never links or merges by email: a taken email is left off the new user', async () => {
    const existing = await createUser({ email: `taken${account.id}@example.com` });
    account.email = existing.email;
    await signIn();
    const created = await UserModel.findOne({ github_id: String(account.id) }).lean();
    expect(created!._id).not.toBe(existing.id);
    expect(created).not.toHaveProperty('email');
    expect(await UserModel.findById(existing.id).lean()).not.toHaveProperty('github_id');
  });

  it('lets many users go without github_id or email, and never two with the same github_id', async () => {
    for (const id of [account.id + 1_000_000, account.id + 2_000_000]) {
      account = { ...account, id, email: null };
      emails = [];
      await signIn();
    }
    expect(await UserModel.collection.countDocuments({ email: { $exists: false } })).toBeGreaterThanOrEqual(2);
    await expect(UserModel.create({ uid: 987654321, github_id: String(account.id), permissionFlags: 1 })).rejects.toMatchObject({
      code: 11000,
    });
  });

  it('lets a GitHub user approve an OAuth client', async () => {
    const { agent } = await signIn();
    const client = await registerClient();
    const location = await approve(agent, { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI });
    expect(location.searchParams.get('code')).toBeTruthy();
  });
});

describe('provider failures give a clear page and no session', () => {
  async function expectFailure(status: number, text: string, code = 'good-code', extra: Record<string, string> = {}) {
    const { agent, state } = await start();
    const res = await agent
      .get('/auth/github')
      .query({ code, state, ...extra })
      .expect(status);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain(text);
    expect(res.text).not.toMatch(/at .*\.(js|ts):\d+/);
    expect(res.text).not.toContain(CLIENT_SECRET);
    await agent.get('/home').expect(302).expect('Location', '/login');
  }

  it('when GitHub rejects the code', async () => {
    tokenAnswer = (res) =>
      json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
    await expectFailure(502, 'GitHub sign-in failed', 'bad-code');
  });

  it('with a wrong client secret: GitHub’s code on the page and in one short log line, never its HTML', async () => {
    // GitHub answers a wrong secret with 200 and an error, as for a bad code.
    tokenAnswer = (res) =>
      json(res, 200, {
        error: 'incorrect_client_credentials',
        error_description: 'The client_id and/or client_secret passed are incorrect.',
      });
    await expectFailure(502, 'GitHub refused the sign-in (incorrect_client_credentials)');
    const { logger, lines } = capturingLogger('warn');
    const logged = createApp({ config: testConfig(githubEnv()), logger });
    tokenAnswer = (res) => {
      res.writeHead(404, { 'Content-Type': 'text/html' });
      res.end(`<!DOCTYPE html><html>${'<p>Not Found</p>'.repeat(200)}</html>`);
    };
    const { agent, state } = await start(request.agent(logged));
    await agent.get('/auth/github').query({ code: 'good-code', state }).expect(502);
    const failure = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((entry) => entry.msg === 'provider sign-in failed');
    // The same line as every provider's failure (upstream.controller.ts): its kind and GitHub's status.
    expect(failure).toMatchObject({ provider: 'github', failure: 'refused', code: 'HTTP 404' });
    expect(lines.join('\n')).not.toContain('Not Found');
    // Our own page is not logged either: the 502's line has its words.
    expect(lines.join('\n')).not.toContain('<html');
    expect(lines.join('\n').length).toBeLessThan(1200);
  });

  it('when the token endpoint fails', async () => {
    tokenAnswer = (res) => json(res, 500, { message: 'boom' });
    await expectFailure(502, 'GitHub sign-in failed');
  });

  it('when the profile is unreadable', async () => {
    profileAnswer = (res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html>maintenance</html>');
    };
    await expectFailure(502, 'GitHub sign-in failed');
  });

  it('when the profile has no id', async () => {
    profileAnswer = (res) => json(res, 200, { login: 'ghost' });
    await expectFailure(502, 'GitHub sign-in failed');
  });

  it('when the user denies consent at GitHub', async () => {
    const { agent, state } = await start();
    const res = await agent
      .get('/auth/github')
      .query({ error: 'access_denied', error_description: 'The user has denied your application access.', state })
      .expect(403);
    expect(res.text).toContain('Sign-in cancelled');
  });

  it('when GitHub cannot be reached: the page every provider gives then (504)', async () => {
    const closed = await startFakeUpstream();
    await closed.close();
    const agent = request.agent(testApp({ ...githubEnv(), GITHUB_TOKEN_URL: `${closed.url}/login/oauth/access_token` }));
    const { state } = await start(agent);
    const res = await agent.get('/auth/github').query({ code: 'good-code', state }).expect(504);
    expect(res.text).toContain('GitHub is not answering');
    await agent.get('/home').expect(302).expect('Location', '/login');
  });

  it('when GitHub does not answer in time (UPSTREAM_TIMEOUT_MS): 504, and no session', async () => {
    tokenAnswer = () => undefined;
    const agent = request.agent(testApp({ ...githubEnv(), UPSTREAM_TIMEOUT_MS: '300' }));
    const { state } = await start(agent);
    const res = await agent.get('/auth/github').query({ code: 'good-code', state }).expect(504);
    expect(res.text).toContain('GitHub did not answer in time');
    await agent.get('/home').expect(302).expect('Location', '/login');
  });
});

describe('configuration', () => {
  it('answers 503 when GitHub credentials are not set, and the rest of the server works', async () => {
    const bare = testApp();
    const res = await request(bare).get('/auth/github').expect(503);
    expect(res.text).toContain('GitHub sign-in is not configured on this server (GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET must be set)');
    await request(bare).get('/users').expect(200);
    await request(bare).get('/login').expect(200);
  });

  it('names the missing half of the pair: at start-up, and on the page outside production', async () => {
    const half = testConfig({ GITHUB_CLIENT_ID: CLIENT_ID, OPENWEATHERMAP_API_KEY: 'k', WUNDERGROUND_API_KEY: 'k' });
    expect(startupWarnings(half)).toEqual([
      'GITHUB_CLIENT_ID is set but GITHUB_CLIENT_SECRET is not: /auth/github answers 503 until both are',
    ]);
    const res = await request(testApp({ GITHUB_CLIENT_ID: CLIENT_ID }))
      .get('/auth/github')
      .expect(503);
    expect(res.text).toContain('(GITHUB_CLIENT_SECRET must be set)');
    const production = await request(testApp({ NODE_ENV: 'production', GITHUB_CLIENT_ID: CLIENT_ID }))
      .get('/auth/github')
      .expect(503);
    expect(production.text).not.toContain('GITHUB_CLIENT_SECRET');
  });

  it('answers 404 for an unknown provider', async () => {
    await request(app()).get('/auth/myspace').expect(404);
  });
});

describe('GitHub and the account rules', () => {
  it('counts a verified primary email from the email list as verified, and a public profile email not', async () => {
    account.email = null;
    emails = [
      { email: `other${nextId}@example.com`, primary: false, verified: true },
      { email: `primary${nextId}@example.com`, primary: true, verified: true },
    ];
    expect((await signIn()).res.status).toBe(302);
    const fromList = await UserModel.findOne({ github_id: String(nextId) }).lean();
    expect(fromList).toMatchObject({ email: `primary${nextId}@example.com`, emailVerified: true });

    nextId += 1;
    account = { ...account, id: nextId, login: `octo${nextId}`, email: `public${nextId}@example.com` };
    expect((await signIn()).res.status).toBe(302);
    const fromProfile = await UserModel.findOne({ github_id: String(nextId) }).lean();
    expect(fromProfile?.email).toBe(`public${nextId}@example.com`);
    expect(fromProfile?.emailVerified).toBeUndefined();
  });

  it('refuses a disabled account with a page that says so, and starts no session', async () => {
    expect((await signIn()).res.status).toBe(302);
    await UserModel.updateOne({ github_id: String(nextId) }, { $set: { disabled: true } });
    const { agent, res } = await signIn();
    expect(res.status).toBe(403);
    expect(res.text).toContain('Account disabled');
    expect((await agent.get('/home')).status).toBe(302);
  });
});

describe('GitHub and second factors', () => {
  it('asks an account with an authenticator app for its code after GitHub too', async () => {
    const first = await signIn();
    expect(first.res.status).toBe(302);
    const { key } = await enrolTotp(first.agent);
    const again = await signIn();
    expect(again.res.status).toBe(302);
    expect(again.res.headers.location).toBe('/login/verify');
    expect((await again.agent.get('/home')).status).toBe(302);
    const verified = await giveCode(again.agent, totpCode(key, Date.now() + 30_000));
    expect(verified.headers.location).toBe('/home');
    await again.agent.get('/home').expect(200);
  });
});
