// Sign-in through an upstream OpenID provider (docs/upstream.md), against a real provider on loopback
// (test/helpers/fake-openid-provider.ts): the flow's checks, accounts made and linked, what a provider
// may do wrong (each its page), the links on /account, and many first sign-ins at once.
import { exportJWK, generateKeyPair } from 'jose';
import request from 'supertest';
import { createApp } from '../../src/app';
import { freePort } from '../helpers/ports';
import { UserModel } from '../../src/users/users.model';
import { UpstreamLinkModel } from '../../src/upstream/upstream-links.model';
import { SessionModel } from '../../src/session/session.model';
import { testApp, testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp, passwordStep, type Agent } from '../helpers/factors';
import { startFakeOpenIdProvider, type FakeOpenIdProvider } from '../helpers/fake-openid-provider';
import { capturingLogger } from '../helpers/logs';
import { movableClock } from '../helpers/clock';
import { csrfFrom } from '../helpers/oauth';

useTestDatabase();

const CLIENT_ID = 'downstream-app';
const CLIENT_SECRET = 'downstream-secret-value-1234';

let provider: FakeOpenIdProvider;
let next = 0;

beforeAll(async () => {
  provider = await startFakeOpenIdProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
});
afterAll(() => provider.close());

beforeEach(() => {
  next += 1;
  provider.tamper = {};
  provider.userinfoOnly = {};
  provider.account = {
    sub: `upstream-${next}-${Date.now()}`,
    email: `ada${next}.${Date.now()}@example.org`,
    email_verified: true,
    given_name: 'Ada',
    family_name: 'Lovelace',
  };
});

const settings = (extra: Record<string, unknown> = {}) => ({
  id: 'acme',
  name: 'Acme ID',
  issuer: provider.issuer,
  client_id: CLIENT_ID,
  client_secret: CLIENT_SECRET,
  ...extra,
});
const env = (extra: Record<string, unknown> = {}) => ({
  UPSTREAM_PROVIDERS: JSON.stringify([settings(extra)]),
  // Generous, so a loaded CI machine never times a healthy provider out; the test of a hanging one sets its own.
  UPSTREAM_TIMEOUT_MS: '10000',
});
const app = (extra: Record<string, unknown> = {}) => testApp(env(extra));

/** The browser leaving for the provider and coming back: the callback's answer. */
async function signInThrough(agent: Agent, query: Record<string, string> = {}) {
  const start = await agent.get('/auth/upstream/acme').query(query).expect(302);
  const callback = new URL(await provider.authorize(start.headers.location));
  return agent.get(callback.pathname + callback.search);
}

/** A form of the page posted with its CSRF token. */
const postForm = (agent: Agent, path: string, page: string, fields: Record<string, string> = {}) =>
  agent
    .post(path)
    .type('form')
    .send({ _csrf: csrfFrom(page), ...fields });

const userByEmail = (email: unknown) => UserModel.findOne({ email: String(email) }).lean();

describe('GET /auth/upstream/:id', () => {
  it('sends the browser to the provider with code, PKCE (S256), state and nonce, keeping them in a signed cookie only', async () => {
    const sessions = await SessionModel.countDocuments();
    const res = await request(app()).get('/auth/upstream/acme').expect(302);
    const to = new URL(res.headers.location);
    expect(to.origin + to.pathname).toBe(`${provider.issuer}/authorize`);
    expect(Object.fromEntries(to.searchParams)).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: 'http://localhost:3000/auth/upstream/acme/callback',
      scope: 'openid email profile',
      state: expect.stringMatching(/^\S{20,}$/),
      nonce: expect.stringMatching(/^\S{20,}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
    });
    const cookie = ([] as string[]).concat(res.headers['set-cookie']).find((c) => c.startsWith('upstream_acme='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/auth\/upstream\/acme\/callback/);
    expect(([] as string[]).concat(res.headers['set-cookie']).some((c) => c.startsWith('sid='))).toBe(false);
    expect(await SessionModel.countDocuments()).toBe(sessions);
  });

  it('answers 404 with a page for a provider that is not configured', async () => {
    const res = await request(app()).get('/auth/upstream/nobody').expect(404);
    expect(res.text).toContain('There is no sign-in provider by that name.');
  });

  it('answers 504 with a page naming the provider when it does not answer discovery', async () => {
    const closed = await freePort();
    const res = await request(testApp(env({ issuer: `http://127.0.0.1:${closed}/gone` })))
      .get('/auth/upstream/acme')
      .expect(504);
    expect(res.text).toContain('Acme ID did not answer in time');
  });

  it('offers a "Sign in with" link per provider on /login and /signup, keeping return_to', async () => {
    const login = await request(app()).get('/login').query({ return_to: '/account' }).expect(200);
    expect(login.text).toContain('<a href="/auth/upstream/acme?return_to=%2Faccount">Sign in with Acme ID</a>');
    const signup = await request(app()).get('/signup').expect(200);
    expect(signup.text).toContain('Sign in with Acme ID</a>');
  });
});

describe('the first and later sign-ins', () => {
  it('creates an account with the verified email on the first sign-in, and signs it in for 30 days with amr fed', async () => {
    const agent = request.agent(app());
    const res = await signInThrough(agent, { return_to: '/account' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/account');
    const user = await userByEmail(provider.account.email);
    expect(user).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', emailVerified: true, permissionFlags: 1 });
    expect(user).not.toHaveProperty('password');
    expect(await UpstreamLinkModel.findOne({ userId: user!._id }).lean()).toMatchObject({
      provider: 'acme',
      subject: provider.account.sub,
    });
    const sid = ([] as string[]).concat(res.headers['set-cookie']).find((c) => c.startsWith('sid='))!;
    const days = (new Date(/Expires=([^;]+)/.exec(sid)![1]).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect((await sessionOf(provider.account.email)).amr).toEqual(['fed']);
    const page = await agent.get('/account').expect(200);
    expect(page.text).toContain('Acme ID: linked');
    expect(page.text).toContain('Account created');
  });

  it('signs the same account in again on later sign-ins and creates nothing', async () => {
    const application = app();
    await signInThrough(request.agent(application));
    const users = await UserModel.countDocuments();
    const again = request.agent(application);
    const res = await signInThrough(again);
    expect(res.headers.location).toBe('/home');
    expect(await UserModel.countDocuments()).toBe(users);
    expect((await again.get('/home').expect(200)).text).toContain('Ada Lovelace');
  });

  it('takes the email from userinfo when the ID token has none', async () => {
    const { email } = provider.account;
    delete provider.account.email;
    delete provider.account.email_verified;
    provider.userinfoOnly = { email, email_verified: true };
    const res = await signInThrough(request.agent(app()));
    expect(res.status).toBe(302);
    expect(await userByEmail(email)).toMatchObject({ emailVerified: true });
  });

  it('maps claims the operator renames', async () => {
    provider.account = { sub: provider.account.sub, mail: provider.account.email, email_verified: true, name: 'Grace Brewster Hopper' };
    const res = await signInThrough(request.agent(app({ claims: { email: 'mail' } })));
    expect(res.status).toBe(302);
    expect(await userByEmail(provider.account.mail)).toMatchObject({ firstName: 'Grace', lastName: 'Brewster Hopper' });
  });

  it('makes a new account for a provider account whose person here was deleted', async () => {
    const clock = movableClock();
    const application = testApp(env(), { clock });
    await signInThrough(request.agent(application));
    const first = await userByEmail(provider.account.email);
    await UserModel.deleteOne({ _id: first!._id });
    // A link younger than a minute whose person is missing is another sign-in still making it.
    expect((await signInThrough(request.agent(application))).status).toBe(409);
    clock.move(61_000);
    const res = await signInThrough(request.agent(application));
    expect(res.status).toBe(302);
    const second = await userByEmail(provider.account.email);
    expect(second!._id).not.toBe(first!._id);
    expect(await UpstreamLinkModel.findOne({ subject: provider.account.sub }).lean()).toMatchObject({ userId: second!._id });
  });

  it('refuses an account that was disabled here', async () => {
    const application = app();
    await signInThrough(request.agent(application));
    await UserModel.updateOne({ email: String(provider.account.email) }, { disabled: true });
    const res = await signInThrough(request.agent(application));
    expect(res.status).toBe(403);
    expect(res.text).toContain('This account has been disabled.');
  });

  it('asks for the second factor of an account that has one, after the provider', async () => {
    const application = app();
    const agent = request.agent(application);
    await signInThrough(agent);
    await enrolTotp(agent);
    const res = await signInThrough(request.agent(application));
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/login/verify');
  });

  it("takes a trusted provider's amr, and only `fed` from one that is not trusted", async () => {
    provider.account.amr = ['pwd', 'otp', 'mfa', 'made-up'];
    await signInThrough(request.agent(app())).then((res) => expect(res.status).toBe(302));
    expect((await sessionOf(provider.account.email)).amr).toEqual(['fed']);
    provider.account.sub = `${provider.account.sub}-trusted`;
    provider.account.email = `trusted-${String(provider.account.email)}`;
    await signInThrough(request.agent(app({ trust_amr: true }))).then((res) => expect(res.status).toBe(302));
    expect((await sessionOf(provider.account.email)).amr).toEqual(['fed', 'pwd', 'otp', 'mfa']);
  });
});

/** The signed-in session of the account with this email, as stored. */
async function sessionOf(email: unknown): Promise<{ amr?: string[] }> {
  const user = await userByEmail(email);
  const session = await SessionModel.findOne({ userId: user!._id }).lean();
  return JSON.parse(session!.data) as { amr?: string[] };
}

describe('an account here with the same email', () => {
  async function proving(application = app()) {
    const owner = await createUser({ email: String(provider.account.email) });
    const agent = request.agent(application);
    const res = await signInThrough(agent, { return_to: '/account' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/login/link');
    return { owner, agent, application };
  }

  it('is linked only after its password, then signed in where the sign-in was asked from', async () => {
    const { owner, agent } = await proving();
    const page = await agent.get('/login/link').expect(200);
    expect(page.text).toContain('An account here already has');
    expect(await UpstreamLinkModel.countDocuments({ userId: owner.id })).toBe(0);

    const wrong = await postForm(agent, '/login/link', page.text, { password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Wrong password.');
    expect(await UpstreamLinkModel.countDocuments({ userId: owner.id })).toBe(0);
    await agent.get('/account').expect(302);

    const right = await postForm(agent, '/login/link', wrong.text, { password: owner.password });
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe('/account');
    expect(await UpstreamLinkModel.countDocuments({ userId: owner.id })).toBe(1);
    const account = await agent.get('/account').expect(200);
    expect(account.text).toContain('Sign-in provider linked');
    // From now on the provider alone signs the owner in.
    const later = await signInThrough(request.agent(app()));
    expect(later.headers.location).toBe('/home');
  });

  it('asks for the second factor after the password when the account has one', async () => {
    const owner = await createUser({ email: String(provider.account.email) });
    const application = app();
    const { agent: owned } = await passwordStep(application, owner);
    await enrolTotp(owned);
    const agent = request.agent(application);
    await signInThrough(agent);
    const page = await agent.get('/login/link').expect(200);
    const res = await postForm(agent, '/login/link', page.text, { password: owner.password });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/login/verify');
  });

  it('tells an account without a password to sign in its own way and link from /account', async () => {
    const application = app();
    // The account was made through the provider; someone else's provider account has its address.
    await signInThrough(request.agent(application));
    provider.account.sub = `${provider.account.sub}-other`;
    const agent = request.agent(application);
    expect((await signInThrough(agent)).headers.location).toBe('/login/link');
    const page = await agent.get('/login/link').expect(200);
    expect(page.text).toContain('That account has no password');
    expect(page.text).not.toContain('name="password"');
  });

  it('sends a browser with nothing to link to /login', async () => {
    await request(app()).get('/login/link').expect(302).expect('Location', '/login');
    const agent = request.agent(app());
    const page = await agent.get('/login').expect(200);
    await postForm(agent, '/login/link', page.text, { password: 'x' }).expect(303).expect('Location', '/login');
  });
});

describe('emails the provider does not vouch for', () => {
  it.each([
    ['email_verified false', { email_verified: false }, {}],
    ['email_verified "false" (as Apple writes it)', { email_verified: 'false' }, {}],
    ['no email_verified, any domain trusted', { email_verified: undefined }, {}],
    ['a domain the operator does not trust', {}, { trusted_email_domains: ['example.com'] }],
  ])('refuses %s with a page, and makes and links nothing', async (_case, claims, extra) => {
    Object.assign(provider.account, claims);
    const users = await UserModel.countDocuments();
    const res = await signInThrough(request.agent(app(extra)));
    expect(res.status).toBe(403);
    expect(res.text).toContain(`Acme ID has not confirmed the address ${provider.account.email}`);
    expect(await UserModel.countDocuments()).toBe(users);
    expect(await UpstreamLinkModel.countDocuments({ subject: provider.account.sub })).toBe(0);
  });

  it('trusts an address in a domain the operator listed even without email_verified (Microsoft)', async () => {
    delete provider.account.email_verified;
    const res = await signInThrough(request.agent(app({ trusted_email_domains: ['example.org'] })));
    expect(res.status).toBe(302);
    expect(await userByEmail(provider.account.email)).toMatchObject({ emailVerified: true });
  });
});

describe('what a provider may do wrong', () => {
  it.each([
    ['a wrong iss', { issuer: 'https://impostor.example.com' }],
    ['a wrong aud', { audience: 'someone-else' }],
    ['a signature from a key it does not publish', { foreignKey: true }],
    ['no nonce', { noNonce: true }],
    ['an expired ID token', { expiresIn: -120 }],
  ])('refuses %s with a 502 page, signing in and making nothing', async (_case, tamper) => {
    provider.tamper = tamper;
    const users = await UserModel.countDocuments();
    const res = await signInThrough(request.agent(app()));
    expect(res.status).toBe(502);
    expect(res.text).toContain('The answer from Acme ID could not be verified');
    expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).some((c) => c.startsWith('sid='))).toBe(false);
    expect(await UserModel.countDocuments()).toBe(users);
  });

  it('says the provider refused when its token endpoint answers an error', async () => {
    provider.tamper = { tokenError: 'invalid_grant' };
    const res = await signInThrough(request.agent(app()));
    expect(res.status).toBe(502);
    expect(res.text).toContain('Acme ID refused the sign-in (invalid_grant)');
  });

  it('answers the callback with error=access_denied by a 403 page, and another error by a 502 page', async () => {
    for (const [error, status, words] of [
      ['access_denied', 403, 'You did not allow Acme ID to sign you in.'],
      ['temporarily_unavailable', 502, 'Acme ID refused the sign-in (temporarily_unavailable)'],
    ] as const) {
      const agent = request.agent(app());
      const start = await agent.get('/auth/upstream/acme').expect(302);
      const state = new URL(start.headers.location).searchParams.get('state')!;
      const res = await agent.get('/auth/upstream/acme/callback').query({ error, state });
      expect(res.status).toBe(status);
      expect(res.text).toContain(words);
    }
  });

  it('gives up on a token endpoint that does not answer, with a 504 page, and hangs up on it', async () => {
    provider.tamper = { tokenHangs: true };
    const res = await signInThrough(request.agent(testApp({ ...env(), UPSTREAM_TIMEOUT_MS: '1000' })));
    expect(res.status).toBe(504);
    expect(res.text).toContain('Acme ID did not answer in time');
    const tokenRequest = provider.upstream.requests.filter((r) => r.url.pathname === '/token').at(-1)!;
    expect(await tokenRequest.abandoned).toBe(true);
  });

  it.each(['discovery', 'jwks', 'token', 'userinfo'] as const)(
    'gives up on a %s answer past its size, with a 502 page, and lives on (issue 48, finding 11)',
    async (endpoint) => {
      provider.tamper = { hugeAnswer: endpoint };
      // userinfo is asked only when the ID token has no email.
      if (endpoint === 'userinfo') {
        const { email, ...rest } = provider.account;
        provider.account = rest;
        provider.userinfoOnly = { email };
      }
      const users = await UserModel.countDocuments();
      const agent = request.agent(app());
      const res = endpoint === 'discovery' ? await agent.get('/auth/upstream/acme') : await signInThrough(agent);
      expect(res.status).toBe(502);
      expect(res.text).toContain('could not be verified');
      expect(await UserModel.countDocuments()).toBe(users);
    },
  );

  it('refuses a sub longer than OpenID Connect allows (255), making no account or link (issue 48, finding 13)', async () => {
    provider.account.sub = `s${'x'.repeat(64 * 1024)}`;
    const users = await UserModel.countDocuments();
    const links = await UpstreamLinkModel.countDocuments();
    const res = await signInThrough(request.agent(app()));
    expect(res.status).toBe(502);
    expect(await UserModel.countDocuments()).toBe(users);
    expect(await UpstreamLinkModel.countDocuments()).toBe(links);
    provider.account.sub = `s${'x'.repeat(254)}`;
    expect((await signInThrough(request.agent(app()))).status).toBe(302);
  });

  it('makes no account from an address POST /users would refuse, even vouched for (issue 48, finding 12)', async () => {
    provider.account.email = `ada\u200b${Date.now()}@example.org`;
    const users = await UserModel.countDocuments();
    const res = await signInThrough(request.agent(app()));
    expect(res.status).toBe(403);
    expect(await UserModel.countDocuments()).toBe(users);
  });

  it('shows people words, never a library code, when a token fails a check', async () => {
    provider.tamper = { audience: 'someone-else' };
    const res = await signInThrough(request.agent(app()));
    expect(res.status).toBe(502);
    expect(res.text).not.toMatch(/OAUTH_[A-Z_]+/);
  });

  it('logs the failure with the provider and its error code, never a token or secret', async () => {
    const { logger, lines } = capturingLogger('warn');
    const application = createApp({ config: testConfig(env()), logger });
    provider.tamper = { tokenError: 'invalid_client' };
    const agent = request.agent(application);
    const start = await agent.get('/auth/upstream/acme').expect(302);
    const callback = new URL(await provider.authorize(start.headers.location));
    const res = await agent.get(callback.pathname + callback.search);
    expect(res.status).toBe(502);
    const line = lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.msg === 'provider sign-in failed');
    expect(line).toMatchObject({ provider: 'acme', failure: 'refused', code: 'invalid_client' });
    const all = lines.join('\n');
    expect(all).not.toContain(CLIENT_SECRET);
    expect(all).not.toContain(callback.searchParams.get('code'));
    expect(all).not.toContain(callback.searchParams.get('state'));
    expect(all).not.toContain(new URL(start.headers.location).searchParams.get('nonce'));
  });
});

describe('the state', () => {
  it('is used once: the same callback again is refused with invalid_state', async () => {
    const agent = request.agent(app());
    const start = await agent.get('/auth/upstream/acme').expect(302);
    const callback = new URL(await provider.authorize(start.headers.location));
    await agent.get(callback.pathname + callback.search).expect(302);
    const again = await agent.get(callback.pathname + callback.search).expect(400);
    expect(again.text).toContain('invalid_state');
  });

  it('must have been signed here, and match the one sent', async () => {
    const agent = request.agent(app());
    const start = await agent.get('/auth/upstream/acme').expect(302);
    const callback = new URL(await provider.authorize(start.headers.location));
    const stranger = request.agent(app());
    await stranger.get(callback.pathname + callback.search).expect(400);
    const forged = await request(app())
      .get(callback.pathname + callback.search)
      .set('Cookie', 'upstream_acme=eyJzdGF0ZSI6IngifQ.forged')
      .expect(400);
    expect(forged.text).toContain('invalid_state');
    const swapped = new URL(callback);
    swapped.searchParams.set('state', 'another-state');
    // One check for every provider (GitHub's too): the state sent back is the one this browser kept.
    const res = await agent.get(swapped.pathname + swapped.search);
    expect(res.status).toBe(400);
    expect(res.text).toContain('invalid_state');
    expect(await UserModel.countDocuments({ email: provider.account.email })).toBe(0);
  });
});

describe('links on /account', () => {
  it('links the provider to a signed-in person, lists it, and unlinks it', async () => {
    const application = app();
    const owner = await createUser();
    const { agent } = await passwordStep(application, owner);
    const page = await agent.get('/account').expect(200);
    expect(page.text).toContain('Acme ID: not linked');
    const leave = await postForm(agent, '/account/providers/acme/link', page.text).expect(303);
    const callback = new URL(await provider.authorize(leave.headers.location));
    await agent
      .get(callback.pathname + callback.search)
      .expect(302)
      .expect('Location', '/account?done=provider-linked');
    const linked = await agent.get('/account?done=provider-linked').expect(200);
    expect(linked.text).toContain(`Acme ID: linked (${provider.account.email})`);
    // The provider now signs the owner in, whatever its email.
    const other = request.agent(application);
    await signInThrough(other);
    expect((await other.get('/home').expect(200)).text).toContain(owner.email);

    const unlink = await postForm(agent, '/account/providers/acme/unlink', linked.text).expect(303);
    expect(unlink.headers.location).toBe('/account?done=provider-unlinked');
    expect(await UpstreamLinkModel.countDocuments({ userId: owner.id })).toBe(0);
    expect((await agent.get('/account').expect(200)).text).toContain('Sign-in provider unlinked');
  });

  it('will not unlink the last way in', async () => {
    const agent = request.agent(app());
    await signInThrough(agent);
    const page = await agent.get('/account').expect(200);
    const res = await postForm(agent, '/account/providers/acme/unlink', page.text).expect(409);
    expect(res.text).toContain('Acme ID is your only way to sign in.');
    expect(await UpstreamLinkModel.countDocuments({ subject: provider.account.sub })).toBe(1);
  });

  it('refuses to link a provider account that belongs to someone else here', async () => {
    const application = app();
    await signInThrough(request.agent(application));
    const owner = await createUser();
    const { agent } = await passwordStep(application, owner);
    const page = await agent.get('/account').expect(200);
    const leave = await postForm(agent, '/account/providers/acme/link', page.text).expect(303);
    const callback = new URL(await provider.authorize(leave.headers.location));
    const res = await agent.get(callback.pathname + callback.search).expect(409);
    expect(res.text).toContain('This Acme ID account is linked to another account here.');
  });

  it('needs the CSRF token and a signed-in person', async () => {
    const agent = request.agent(app());
    await signInThrough(agent);
    await agent.post('/account/providers/acme/unlink').type('form').send({}).expect(403);
    await request(app())
      .post('/account/providers/acme/link')
      .type('form')
      .send({})
      .expect(303)
      .expect('Location', /^\/login/);
  });
});

describe('private_key_jwt', () => {
  it('authenticates to the token endpoint with an assertion signed by the configured key', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const keyed = await startFakeOpenIdProvider({ clientId: CLIENT_ID, clientSecret: 'unused', clientKey: await exportJWK(publicKey) });
    try {
      keyed.account = { ...provider.account };
      const privateJwk = { ...(await exportJWK(privateKey)), alg: 'ES256', kid: 'downstream-1' };
      const application = testApp({
        UPSTREAM_PROVIDERS: JSON.stringify([
          { id: 'acme', name: 'Acme ID', issuer: keyed.issuer, client_id: CLIENT_ID, private_key_jwk: privateJwk },
        ]),
      });
      const agent = request.agent(application);
      const start = await agent.get('/auth/upstream/acme').expect(302);
      const callback = new URL(await keyed.authorize(start.headers.location));
      await agent
        .get(callback.pathname + callback.search)
        .expect(302)
        .expect('Location', '/home');
      const token = keyed.upstream.requests.find((r) => r.url.pathname === '/token')!;
      expect(token.headers.authorization).toBeUndefined();
      expect(new URLSearchParams(token.body).get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    } finally {
      await keyed.close();
    }
  });
});

describe('many first sign-ins of one provider account at once', () => {
  it('make one account and one link; every other answer signs in or says to try again', async () => {
    const application = app();
    const agents = Array.from({ length: 20 }, () => request.agent(application));
    const callbacks = await Promise.all(
      agents.map(async (agent) => {
        const start = await agent.get('/auth/upstream/acme').expect(302);
        return new URL(await provider.authorize(start.headers.location));
      }),
    );
    const answers = await Promise.all(agents.map((agent, i) => agent.get(callbacks[i].pathname + callbacks[i].search)));
    expect(await UserModel.countDocuments({ email: provider.account.email })).toBe(1);
    expect(await UpstreamLinkModel.countDocuments({ subject: provider.account.sub })).toBe(1);
    for (const answer of answers) expect([302, 409]).toContain(answer.status);
    expect(answers.filter((answer) => answer.status === 302).every((answer) => answer.headers.location === '/home')).toBe(true);
    expect(answers.some((answer) => answer.status === 302)).toBe(true);
  });
});
