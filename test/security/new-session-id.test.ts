// Every completed sign-in gets a new session id, whatever the session held before (issue 48, finding
// 5): an attacker who planted a session id of theirs in the victim's browser (cookie tossing) gains
// nothing when the victim signs in with it. In production over https the cookie is `__Host-sid`,
// which a sibling subdomain cannot set at all.
import type { Express } from 'express';
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { startFakeOpenIdProvider, type FakeOpenIdProvider } from '../helpers/fake-openid-provider';
import { csrfFrom } from '../helpers/oauth';
import { passwordStep, type Agent } from '../helpers/factors';

useTestDatabase();

const CLIENT_ID = 'fixation-app';
const CLIENT_SECRET = 'fixation-secret-value-1234';
let provider: FakeOpenIdProvider;
let next = 0;

beforeAll(async () => {
  provider = await startFakeOpenIdProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
});
afterAll(() => provider.close());

const upstreamEnv = () => ({
  UPSTREAM_PROVIDERS: JSON.stringify([
    { id: 'acme', name: 'Acme ID', issuer: provider.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
  ]),
  UPSTREAM_TIMEOUT_MS: '10000',
});

/** The value of a cookie a response set, if any. */
function cookieOf(res: { headers: Record<string, unknown> }, name: string): string | undefined {
  const cookies = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  return cookies.map((cookie) => (cookie.startsWith(`${name}=`) ? cookie.slice(name.length + 1).split(';')[0] : undefined)).find(Boolean);
}

/** The `sid` a response set, if any. */
const sessionCookieOf = (res: { headers: Record<string, unknown> }) => cookieOf(res, 'sid');

/** Whether a browser holding only this session cookie is signed in. */
async function signedInWith(app: Parameters<typeof request>[0], sid: string): Promise<boolean> {
  const res = await request(app).get('/account').set('Cookie', `sid=${sid}`);
  return res.status === 200;
}

/**
 * The attacker's half: signed in to an account of their own, an upstream sign-in with a provider
 * account that has the victim's address, which stops at /login/link. Returns the attacker's session
 * cookie and the link page's interaction, both to be planted in the victim's browser, and the page.
 */
async function plantedLinkSession(app: Express, victimEmail: string) {
  next += 1;
  provider.account = { sub: `attacker-${next}-${Date.now()}`, email: victimEmail, email_verified: true };
  const attacker: Agent = request.agent(app);
  const planted = sessionCookieOf((await passwordStep(app, await createUser(), attacker)).res)!;
  expect(planted).toBeDefined();
  const start = await attacker.get('/auth/upstream/acme').expect(302);
  const callback = new URL(await provider.authorize(start.headers.location));
  const back = await attacker.get(callback.pathname + callback.search).expect(302);
  expect(back.headers.location).toBe('/login/link');
  const interaction = cookieOf(back, 'interaction')!;
  expect(interaction).toBeDefined();
  // The page as the victim's browser gets it, with the planted cookies (its form carries the planted
  // session's CSRF token).
  const cookie = `sid=${planted}; interaction=${interaction}`;
  const page = await request(app).get('/login/link').set('Cookie', cookie).expect(200);
  return { planted, csrf: csrfFrom(page.text), cookie };
}

describe('the link page (/login/link)', () => {
  it('signs the victim in under a new session id: the planted one stays signed out', async () => {
    const app = testApp(upstreamEnv());
    const victim = await createUser();
    const { planted, csrf, cookie } = await plantedLinkSession(app, victim.email);
    // The victim's browser, holding the planted cookie, gives the right password.
    const res = await request(app)
      .post('/login/link')
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf, password: victim.password })
      .expect(303);
    const fresh = sessionCookieOf(res);
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(planted);
    expect(await signedInWith(app, fresh!)).toBe(true);
    expect(await signedInWith(app, planted)).toBe(false);
  });

  it.each([
    ['one instance', 1],
    ['two instances', 2],
  ])('holds when the right password arrives 100 times at once on %s', async (_name, count) => {
    const apps = Array.from({ length: count }, () => testApp(upstreamEnv()));
    const victim = await createUser();
    const { planted, csrf, cookie } = await plantedLinkSession(apps[0], victim.email);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        request(apps[i % count])
          .post('/login/link')
          .set('Cookie', cookie)
          .type('form')
          .send({ _csrf: csrf, password: victim.password }),
      ),
    );
    for (const res of answers) {
      expect([303, 401, 429]).toContain(res.status);
      expect(sessionCookieOf(res) ?? 'none').not.toBe(planted);
    }
    expect(answers.some((res) => res.status === 303 && res.headers.location === '/home')).toBe(true);
    for (const app of apps) expect(await signedInWith(app, planted)).toBe(false);
  });
});

describe('the session cookie in production over https', () => {
  it('is __Host-sid: Secure, Path=/, no Domain; and the CSRF cookie is __Host-csrf', async () => {
    const app = testApp({ NODE_ENV: 'production', PUBLIC_URL: 'https://id.example.com', TRUST_PROXY: 'true' });
    const user = await createUser();
    const login = await request(app).get('/login').set('X-Forwarded-Proto', 'https').expect(200);
    const csrfCookie = ([] as string[]).concat(login.headers['set-cookie']).find((cookie) => cookie.startsWith('__Host-csrf='))!;
    expect(csrfCookie).toMatch(/; Path=\/;.*Secure/);
    const signedIn = await request(app)
      .post('/login')
      .set('X-Forwarded-Proto', 'https')
      .set('Cookie', csrfCookie.split(';')[0])
      .type('form')
      .send({ _csrf: csrfFrom(login.text), email: user.email, password: user.password })
      .expect(303);
    const sid = ([] as string[]).concat(signedIn.headers['set-cookie']).find((cookie) => cookie.startsWith('__Host-sid='))!;
    expect(sid).toMatch(/; Path=\//);
    expect(sid).toMatch(/; Secure/);
    expect(sid).toMatch(/; HttpOnly/);
    expect(sid).not.toMatch(/Domain=/i);
    // A plain `sid` cookie is no session there.
    const home = await request(app).get('/home').set('X-Forwarded-Proto', 'https').set('Cookie', sid.split(';')[0]).expect(200);
    expect(home.text).toContain(user.email);
    const tossed = `sid=${sid.split(';')[0].slice('__Host-sid='.length)}`;
    await request(app).get('/home').set('X-Forwarded-Proto', 'https').set('Cookie', tossed).expect(302);
  });
});
