// OIDC Core 3.1.2.1: the authorization endpoint takes a request by POST (a form) as well as by GET,
// through the same steps; the consent page's own form is the one with a decision and a CSRF token.
import request from 'supertest';
import { CodeModel } from '../../src/oauth/tokens/tokens.model';
import { SessionModel } from '../../src/session/session.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { approve, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

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
    const { agent } = await signedInAgent(app);
    const page = await agent
      .get('/oauth/authorize')
      .query({ ...requestFor(client.client_id), max_age: '1' })
      .expect(200);
    // Two seconds on (the session's sign-in made older, as the page stays open).
    const stored = (await SessionModel.find().lean()).find((doc) => doc.data.includes(formOf(page.text).consent))!;
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
