// OIDC Core 3.1.2.1: the authorization endpoint takes a request by POST (a form) as well as by GET,
// through the same steps; the consent page's own form is the one with a decision and a CSRF token.
import request from 'supertest';
import { CodeModel } from '../../src/oauth/tokens/tokens.model';
import { SessionModel } from '../../src/session/session.model';
import { InteractionModel } from '../../src/sign-in/interaction.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { passwordStep } from '../helpers/factors';
import { approve, REDIRECT_URI, registerClient, signedInAgent, signOutOf } from '../helpers/oauth';

useTestDatabase();
const app = testApp();
const requestFor = (clientId: string) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: REDIRECT_URI,
  scope: 'openid',
  state: 'posted',
  nonce: 'n-1',
});

it('shows the consent page for a request posted by a signed-in person, and approving it gives a code', async () => {
  const client = await registerClient();
  const { agent } = await signedInAgent(app);
  const consent = await agent.post('/oauth/authorize').type('form').send(requestFor(client.client_id)).expect(200);
  expect(consent.text).toContain('>Approve</button>');
  const location = await approve(agent, requestFor(client.client_id));
  expect(location.searchParams.get('state')).toBe('posted');
  expect(location.searchParams.get('code')).toEqual(expect.any(String));
});

it('sends a posted request from someone not signed in to sign in, coming back by GET with its parameters', async () => {
  const client = await registerClient();
  const res = await request(app).post('/authorize').type('form').send(requestFor(client.client_id)).expect(302);
  const returnTo = new URL(res.headers.location, 'http://x').searchParams.get('return_to')!;
  const back = new URL(returnTo, 'http://x');
  expect(back.pathname).toBe('/authorize');
  expect(Object.fromEntries(back.searchParams)).toMatchObject(requestFor(client.client_id));
});

it('still refuses a decision posted without the CSRF token', async () => {
  const client = await registerClient();
  const { agent } = await signedInAgent(app);
  await agent
    .post('/oauth/authorize')
    .type('form')
    .send({ ...requestFor(client.client_id), decision: 'approve' })
    .expect(403);
});

describe('the decision acts on the request the consent page showed', () => {
  const essentialAcr = JSON.stringify({ id_token: { acr: { essential: true, values: ['2'] } } });

  /** The consent page's form: its token and the id of the request the server kept. */
  const formOf = (page: string) =>
    Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));

  it('carries only the form token and the request’s id, never the request’s parameters', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const page = await agent.get('/oauth/authorize').query(requestFor(client.client_id)).expect(200);
    expect(Object.keys(formOf(page.text)).sort()).toEqual(['_csrf', 'consent']);
  });

  it('refuses parameters posted with a decision instead of the page’s request: essential acr, prompt=login and max_age are not skipped', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    // The GET refuses the essential acr 2 for a person without a second factor.
    const refused = await agent
      .get('/oauth/authorize')
      .query({ ...requestFor(client.client_id), claims: essentialAcr })
      .expect(302);
    expect(new URL(refused.headers.location).searchParams.get('error')).toBe('access_denied');
    // The same request posted with the session's form token and an approval gives no code.
    const page = await agent.get('/oauth/authorize').query(requestFor(client.client_id)).expect(200);
    const { _csrf } = formOf(page.text);
    for (const extra of [{ claims: essentialAcr }, { prompt: 'login' }, { max_age: '0' }]) {
      const posted = await agent
        .post('/oauth/authorize')
        .type('form')
        .send({ ...requestFor(client.client_id), ...extra, _csrf, decision: 'approve' })
        .expect(400);
      expect(posted.text).toContain('This page has expired');
    }
    expect(await CodeModel.countDocuments({ clientId: client.client_id })).toBe(0);
  });

  it('checks the kept request again at the decision: a max_age that ran out while the page was open means signing in again', async () => {
    const client = await registerClient();
    const { agent, user } = await signedInAgent(app, await createUser());
    const page = await agent
      .get('/oauth/authorize')
      .query({ ...requestFor(client.client_id), max_age: '1' })
      .expect(200);
    // Two seconds on (the session's sign-in made older, as the page stays open).
    const stored = (await SessionModel.findOne({ userId: user.id }).lean())!;
    const data = JSON.parse(stored.data) as { authTime: number };
    data.authTime -= 2_000;
    await SessionModel.updateOne({ _id: stored._id }, { $set: { data: JSON.stringify(data) } });
    const decided = await agent
      .post('/oauth/authorize')
      .type('form')
      .send({ ...formOf(page.text), decision: 'approve' })
      .expect(303);
    expect(decided.headers.location).toMatch(/^\/login\?return_to=/);
    expect(await CodeModel.countDocuments({ clientId: client.client_id })).toBe(0);
  });

  it('uses a consent page once, and only in the session that showed it', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const page = await agent.get('/oauth/authorize').query(requestFor(client.client_id)).expect(200);
    const form = formOf(page.text);
    const other = await signedInAgent(app);
    const otherPage = await other.agent.get('/oauth/authorize').query(requestFor(client.client_id)).expect(200);
    await other.agent
      .post('/oauth/authorize')
      .type('form')
      .send({ ...form, _csrf: formOf(otherPage.text)._csrf, decision: 'approve' })
      .expect(400);
    await agent
      .post('/oauth/authorize')
      .type('form')
      .send({ ...form, decision: 'approve' })
      .expect(302);
    await agent
      .post('/oauth/authorize')
      .type('form')
      .send({ ...form, decision: 'approve' })
      .expect(400);
    expect(await CodeModel.countDocuments({ clientId: client.client_id })).toBe(1);
  });
});

it('keeps no request over 32 kB for a consent page: a request that large is refused with a page', async () => {
  const client = await registerClient();
  const { agent } = await signedInAgent(app);
  const padding = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`extra_${i}`, 'x'.repeat(2000)]));
  const res = await agent
    .post('/oauth/authorize')
    .type('form')
    .send({ ...requestFor(client.client_id), ...padding });
  expect(res.status).toBe(400);
  expect(res.text).toContain('over 32 kB');
});

describe('where the consent page’s request waits: an interaction record of the session that showed it', () => {
  const formOf = (page: string) =>
    Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));

  it('keeps the request in a record bound to the person and the session, never in the session', async () => {
    const client = await registerClient();
    const { agent, user } = await signedInAgent(app, await createUser());
    const page = await agent.get('/oauth/authorize').query(requestFor(client.client_id)).expect(200);
    const kept = await InteractionModel.findById(formOf(page.text).consent).lean();
    expect(kept?.consent).toMatchObject({ userId: user.id, parameters: requestFor(client.client_id) });
    const session = (await SessionModel.findOne({ userId: user.id }).lean())!;
    expect(kept?.consent?.sid).toBe((JSON.parse(session.data) as { oidcSid: string }).oidcSid);
    expect(session.data).not.toContain(formOf(page.text).consent);
  });

  it('is not the next session’s: signed out and in again, the same person’s old page has expired', async () => {
    const client = await registerClient();
    const user = await createUser();
    const { agent } = await signedInAgent(app, user);
    const page = await agent.get('/oauth/authorize').query(requestFor(client.client_id)).expect(200);
    await signOutOf(agent);
    const again = await signedInAgent(app, user);
    const fresh = await again.agent.get('/oauth/authorize').query(requestFor(client.client_id)).expect(200);
    const posted = await again.agent
      .post('/oauth/authorize')
      .type('form')
      .send({ ...formOf(page.text), _csrf: formOf(fresh.text)._csrf, decision: 'approve' })
      .expect(400);
    expect(posted.text).toContain('This page has expired');
  });

  it.each([
    ['one instance', 1],
    ['two instances', 2],
  ])('gives one code when the decision arrives 100 times at once on %s', async (_name, count) => {
    const apps = [app, ...Array.from({ length: count - 1 }, () => testApp())];
    const client = await registerClient();
    const { agent, res } = await passwordStep(app, await createUser());
    const page = await agent.get('/oauth/authorize').query(requestFor(client.client_id)).expect(200);
    const cookie = ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .map((line) => line.split(';')[0])
      .join('; ');
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        request(apps[i % count])
          .post('/oauth/authorize')
          .set('Cookie', cookie)
          .type('form')
          .send({ ...formOf(page.text), decision: 'approve' }),
      ),
    );
    expect(answers.filter((res) => res.status === 302)).toHaveLength(1);
    expect(answers.filter((res) => res.status === 400)).toHaveLength(99);
    expect(await CodeModel.countDocuments({ clientId: client.client_id })).toBe(1);
  });

  it('keeps at most 60 pages a person opens in a window (rate limits on): the next is refused and keeps nothing', async () => {
    const limited = testApp({ RATE_LIMITS: 'on' });
    const client = await registerClient();
    const { agent } = await signedInAgent(limited, await createUser());
    for (let i = 0; i < 60; i++) await agent.get('/oauth/authorize').query(requestFor(client.client_id)).expect(200);
    const before = await InteractionModel.countDocuments();
    const refused = await agent.get('/oauth/authorize').query(requestFor(client.client_id));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toEqual(expect.any(String));
    expect(await InteractionModel.countDocuments()).toBe(before);
  });
});
