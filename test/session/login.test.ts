import request from 'supertest';
import { SessionModel } from '../../src/session/session.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { csrfFrom, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

function sidCookie(res: request.Response): string {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const sid = cookies.find((cookie) => cookie.startsWith('sid='));
  if (!sid) throw new Error('no sid cookie');
  return sid;
}

describe('GET /login', () => {
  it('shows a form with email, password, remember, a Sign in button and a CSRF token', async () => {
    const res = await request(app)
      .get('/login')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    expect(res.text).toMatch(/<input id="email" name="email" type="email"/);
    expect(res.text).toMatch(/<input id="password" name="password" type="password"/);
    expect(res.text).toMatch(/<input type="checkbox" name="remember"/);
    expect(res.text).toMatch(/<button type="submit">Sign in<\/button>/);
    expect(csrfFrom(res.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.text).toContain('<label for="email">');
  });

  it('offers GitHub sign-in only when GitHub is configured, since it would lead to a 503 otherwise', async () => {
    expect((await request(app).get('/login').expect(200)).text).not.toContain('/auth/github');
    const withGitHub = testApp({ GITHUB_CLIENT_ID: 'github-client-id', GITHUB_CLIENT_SECRET: 'github-client-secret' });
    expect((await request(withGitHub).get('/login').expect(200)).text).toContain(
      '<a href="/auth/github?return_to=%2Fhome">Sign in with GitHub</a>',
    );
  });
});

/** Opens the sign-in page, then posts its form with the page's CSRF token. */
async function postLoginForm(agent: ReturnType<typeof request.agent>, fields: Record<string, string>, status: number) {
  const page = await agent.get('/login');
  return agent
    .post('/login')
    .type('form')
    .send({ _csrf: csrfFrom(page.text), ...fields })
    .expect(status);
}

describe('POST /login', () => {
  it('signs in, keeps the session in MongoDB and redirects to /home', async () => {
    const user = await createUser();
    const agent = request.agent(app);
    const res = await postLoginForm(agent, { email: user.email, password: user.password }, 303);
    expect(res.headers.location).toBe('/home');
    const cookie = sidCookie(res);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Expires=|Max-Age=/);
    const sid = decodeURIComponent(cookie.split(';')[0].slice(4)).slice(2).split('.')[0];
    const stored = await SessionModel.findById(sid).lean();
    expect(JSON.parse(stored!.data).userId).toBe(user.id);
    const home = await agent.get('/home').expect(200);
    expect(home.text).toContain(user.email);
  });

  it("stores the forms' token with the session at sign-in, so no page has to store it while it is sent", async () => {
    const user = await createUser();
    const agent = request.agent(app);
    const res = await postLoginForm(agent, { email: user.email, password: user.password }, 303);
    const sid = decodeURIComponent(sidCookie(res).split(';')[0].slice(4)).slice(2).split('.')[0];
    const atSignIn = JSON.parse((await SessionModel.findById(sid).lean())!.data) as { csrfToken?: string };
    expect(atSignIn.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The page's form carries that very token (a click before the page has finished loading works).
    const home = await agent.get('/home').expect(200);
    expect(csrfFrom(home.text)).toBe(atSignIn.csrfToken);
  });

  it('with remember-me sets a persistent cookie for 30 days', async () => {
    const user = await createUser();
    const agent = request.agent(app);
    const res = await postLoginForm(agent, { email: user.email, password: user.password, remember: '1' }, 303);
    const expires = /Expires=([^;]+)/.exec(sidCookie(res))![1];
    const days = (new Date(expires).getTime() - Date.now()) / (24 * 3600 * 1000);
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });

  it('gives a new session id on sign-in (no session fixation)', async () => {
    // An anonymous visit gets no session at all; a session that exists is replaced at sign-in.
    const [first, second] = [await createUser(), await createUser()];
    const agent = request.agent(app);
    const page = await agent.get('/login');
    expect(([] as string[]).concat(page.headers['set-cookie'] ?? []).some((cookie) => cookie.startsWith('sid='))).toBe(false);
    const signedIn = await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), email: first.email, password: first.password })
      .expect(303);
    const home = await agent.get('/home').expect(200);
    const res = await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(home.text), email: second.email, password: second.password })
      .expect(303);
    expect(sidCookie(res).split(';')[0]).not.toBe(sidCookie(signedIn).split(';')[0]);
  });

  it('answers 401 with the form and a message for a wrong password, never echoing it', async () => {
    const user = await createUser();
    const agent = request.agent(app);
    const res = await postLoginForm(agent, { email: user.email, password: 'wrong-secret-value' }, 401);
    expect(res.text).toContain('Invalid email or password.');
    expect(res.text).not.toContain('wrong-secret-value');
    await agent.get('/home').expect(302).expect('Location', '/login');
  });

  it('refuses a post without the CSRF token', async () => {
    const user = await createUser();
    const agent = request.agent(app);
    await agent.get('/login');
    const res = await agent.post('/login').type('form').send({ email: user.email, password: user.password }).expect(403);
    expect(res.text).toContain('Form expired');
  });

  it.each([
    ['/v1/oauth/authorize?client_id=x', '/v1/oauth/authorize?client_id=x'],
    ['https://evil.example.com/', '/home'],
    ['//evil.example.com/', '/home'],
    ['/\\evil.example.com', '/home'],
  ])('returns to %s only when it is a local path', async (returnTo, expected) => {
    const user = await createUser();
    const agent = request.agent(app);
    const page = await agent.get('/login').query({ return_to: returnTo });
    const res = await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), email: user.email, password: user.password, return_to: returnTo })
      .expect(303);
    expect(res.headers.location).toBe(expected);
  });
});

describe('GET /home and POST /logout', () => {
  it('redirects to /login when not signed in', async () => {
    await request(app).get('/home').expect(302).expect('Location', '/login');
  });

  it('signs out, deleting the session', async () => {
    const { agent } = await signedInAgent(app);
    const home = await agent.get('/home').expect(200);
    await agent
      .post('/logout')
      .type('form')
      .send({ _csrf: csrfFrom(home.text) })
      .expect(303)
      .expect('Location', '/login');
    await agent.get('/home').expect(302);
  });

  it('refuses to sign a session out without its CSRF token, so another site cannot', async () => {
    const { agent } = await signedInAgent(app);
    await agent.post('/logout').type('form').send({ _csrf: 'forged' }).expect(403);
    await agent.post('/logout').type('form').send({}).expect(403);
    await agent.get('/home').expect(200);
  });

  it('answers a sign-out without a signed-in session with the redirect, as there is nothing to protect', async () => {
    await request(app).post('/logout').type('form').send({}).expect(303).expect('Location', '/login');
  });
});
