// Every completed sign-in and every step-up gives the browser a new session id, whatever its session
// held before (issue 51): one case per way in. The browser first holds a session that is stored (an
// attacker's signed-in session planted in it, a pending second step, a weaker session of its own);
// the test keeps a copy of that cookie, finishes the way in, and finds the copy signed out and the
// new cookie signed in as the person. The link page has its own cases in
// test/security/new-session-id.test.ts.
import type { KeyObject } from 'node:crypto';
import request from 'supertest';
import { UserModel } from '../../src/users/users.model';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp, giveCode, passkeyAssertion, passkeyOf, passwordStep, totpCode, type Agent } from '../helpers/factors';
import { csrfFrom } from '../helpers/oauth';
import { pathOf, postForm } from '../helpers/account-pages';
import { movableClock } from '../helpers/clock';
import { useWaysIn, WAYS_IN_BASE } from '../helpers/ways-in';

useTestDatabase();

const clock = movableClock();
const ways = useWaysIn(clock);
let next = 0;

/** The session cookie's value a response set, if it set one. */
function sidOf(res: { headers: Record<string, unknown> }): string | undefined {
  const cookies = ([] as string[]).concat((res.headers['set-cookie'] as string[] | undefined) ?? []);
  return cookies.map((cookie) => /^sid=([^;]+)/.exec(cookie)?.[1]).find(Boolean);
}

/** Who a browser holding only this session cookie is, by the account page: an email, or null (signed out). */
async function personWith(sid: string): Promise<string | null> {
  const res = await request(ways.app).get('/account').set('Cookie', `sid=${sid}`);
  if (res.status !== 200) return null;
  return /name="email"[^>]*value="([^"]+)"/.exec(res.text)?.[1] ?? /([\w.+-]+@[\w.-]+)/.exec(res.text)?.[1] ?? 'someone';
}

/** A browser holding an attacker's signed-in session (planted in it); the planted cookie. */
async function plantedBrowser(): Promise<{ agent: Agent; planted: string }> {
  const attacker = await createUser();
  const { agent, res } = await passwordStep(ways.app, attacker);
  expect(res.status).toBe(303);
  const planted = sidOf(res)!;
  expect(await personWith(planted)).not.toBeNull();
  return { agent, planted };
}

/** Checks the way in's last answer: a new cookie, signed in as `email`; the old copy signed out. */
async function expectRenewed(last: { status: number; headers: Record<string, unknown> }, old: string, email: string) {
  expect([200, 302, 303]).toContain(last.status);
  const fresh = sidOf(last);
  expect(fresh).toBeDefined();
  expect(fresh).not.toBe(old);
  expect(await personWith(fresh!)).toBe(email);
  expect(await personWith(old)).toBeNull();
}

const assertion = (passkey: { id: string; key: KeyObject }, challenge: string) => passkeyAssertion(passkey, challenge, WAYS_IN_BASE);

/**
 * A person with an authenticator app, their password given in a browser holding someone else's
 * session (planted): at the second step, which is an interaction of its own; the planted session is
 * untouched until the sign-in completes.
 */
async function atSecondStep() {
  const person = await createUser();
  const { agent: first } = await passwordStep(ways.app, person);
  const { key } = await enrolTotp(first, clock.now());
  const { agent, planted } = await plantedBrowser();
  const page = await agent.get('/login?prompt=login').expect(200);
  const pending = await agent
    .post('/login')
    .type('form')
    .send({ _csrf: csrfFrom(page.text), email: person.email, password: person.password });
  expect(pending.headers.location).toBe('/login/verify');
  expect(sidOf(pending)).toBeUndefined();
  return { person, key, agent, pending, planted };
}

describe('a new session id at every way in', () => {
  it('a passkey alone (over a planted session)', async () => {
    const victim = await createUser();
    const passkey = await passkeyOf(victim.id);
    const { agent, planted } = await plantedBrowser();
    const page = await agent.get('/login?prompt=login').expect(200);
    const _csrf = csrfFrom(page.text);
    const options = await agent.post('/login/passkey/options').send({ _csrf }).expect(200);
    const res = await agent
      .post('/login/passkey')
      .send({ _csrf, response: assertion(passkey, options.body.challenge), return_to: '/account' })
      .expect(200);
    expect(res.body).toEqual({ redirect: '/account' });
    await expectRenewed(res, planted, victim.email);
  });

  it('no passkey alone for a disabled account: refused, and the planted session stays as it was', async () => {
    const victim = await createUser();
    const passkey = await passkeyOf(victim.id);
    await UserModel.updateOne({ _id: victim.id }, { $set: { disabled: true } });
    const { agent, planted } = await plantedBrowser();
    const page = await agent.get('/login?prompt=login').expect(200);
    const _csrf = csrfFrom(page.text);
    const options = await agent.post('/login/passkey/options').send({ _csrf }).expect(200);
    const res = await agent.post('/login/passkey').send({ _csrf, response: assertion(passkey, options.body.challenge) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'This account is disabled.' });
    expect(sidOf(res)).toBeUndefined();
    expect(await personWith(planted)).not.toBeNull();
  });

  it('a password (over a planted session)', async () => {
    const { agent, planted } = await plantedBrowser();
    const victim = await createUser();
    const page = await agent.get('/login?prompt=login').expect(200);
    const res = await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), email: victim.email, password: victim.password });
    await expectRenewed(res, planted, victim.email);
  });

  it('GitHub (over a planted session)', async () => {
    const { agent, planted } = await plantedBrowser();
    next += 1;
    ways.githubAccount = { ...ways.githubAccount, id: 5000 + next, login: `octo${next}`, email: `octo-way-${next}@example.com` };
    const start = await agent.get('/auth/github').expect(302);
    const state = new URL(start.headers.location).searchParams.get('state')!;
    const res = await agent.get('/auth/github').query({ code: 'good-code', state });
    await expectRenewed(res, planted, ways.githubAccount.email!);
  });

  it('an OpenID provider (over a planted session)', async () => {
    const { agent, planted } = await plantedBrowser();
    next += 1;
    const email = `acme-way-${next}@example.com`;
    ways.provider.account = { sub: `acme-${next}-${Date.now()}`, email, email_verified: true };
    const start = await agent.get('/auth/upstream/acme').expect(302);
    const callback = new URL(await ways.provider.authorize(start.headers.location));
    const res = await agent.get(callback.pathname + callback.search);
    await expectRenewed(res, planted, email);
  });

  it('a new account (over a planted session)', async () => {
    const { agent, planted } = await plantedBrowser();
    next += 1;
    const email = `new-way-${next}@example.com`;
    const page = await agent.get('/signup').expect(302);
    expect(page.headers.location).toBe('/account');
    // A signed-in browser is sent on from the form; a form posted anyway carries the session's token.
    const home = await agent.get('/account').expect(200);
    const res = await agent
      .post('/signup')
      .type('form')
      .send({ _csrf: csrfFrom(home.text), email, password: 'a-long-new-password-1', firstName: 'New', lastName: 'Person' });
    await expectRenewed(res, planted, email);
  });

  it('a reset link (over a planted session)', async () => {
    const victim = await createUser();
    expect((await postForm(request.agent(ways.app), '/forgot-password', '/forgot-password', { email: victim.email })).status).toBe(200);
    const [mail] = await ways.sink.mailTo(victim.email, 1);
    const { agent, planted } = await plantedBrowser();
    const form = await agent.get(pathOf(mail.link)).expect(200);
    const res = await agent
      .post('/reset-password')
      .type('form')
      .send({ _csrf: csrfFrom(form.text), token: new URL(mail.link!).searchParams.get('token'), password: 'another-long-password-2' });
    await expectRenewed(res, planted, victim.email);
  });

  it('the second step (over a planted session)', async () => {
    const { person, key, agent, planted } = await atSecondStep();
    const res = await giveCode(agent, totpCode(key, clock.now() + 30_000));
    await expectRenewed(res, planted, person.email);
  });

  it('a step-up (the signed-in session copied before it)', async () => {
    const { person, key, agent } = await atSecondStep();
    const signedIn = await giveCode(agent, totpCode(key, clock.now() + 30_000));
    const old = sidOf(signedIn)!;
    expect(await personWith(old)).toBe(person.email);
    // Past the 10 minutes in which a second factor just given spares the step-up.
    clock.move(11 * 60_000);
    const ask = await agent.get('/login/step-up').query({ return_to: '/account' }).expect(302);
    expect(ask.headers.location).toBe('/login/verify');
    // The step-up's pending step is an interaction: the session stays as it was until the factor.
    expect(sidOf(ask)).toBeUndefined();
    const res = await giveCode(agent, totpCode(key, clock.now()));
    await expectRenewed(res, old, person.email);
  });
});
