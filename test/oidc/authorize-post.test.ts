// OIDC Core 3.1.2.1: the authorization endpoint takes a request by POST (a form) as well as by GET,
// through the same steps; the consent page's own form is the one with a decision and a CSRF token.
import request from 'supertest';
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
