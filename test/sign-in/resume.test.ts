// The journey's last step and the application's request it came from: answered in the sign-in's own
// response when nothing more is needed of the person (consent remembered), else the browser is sent
// back to the authorization endpoint as before (the consent page, a request object, an error to show).
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, csrfFrom, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

async function signIn(user: { email: string; password: string }, returnTo: string) {
  const agent = request.agent(app);
  const page = await agent.get('/login').query({ return_to: returnTo }).expect(200);
  const res = await agent
    .post('/login')
    .type('form')
    .send({ _csrf: csrfFrom(page.text), email: user.email, password: user.password, return_to: returnTo })
    .expect(303);
  return { agent, res };
}

const authorizePath = (query: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(query).toString()}`;

it('answers a request with remembered consent from the sign-in itself: the code and state at the redirect URI', async () => {
  const user = await createUser();
  const client = await registerClient();
  const query = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'read', state: 'kept' };
  await approve((await signedInAgent(app, user)).agent, query);
  const { res } = await signIn(user, authorizePath(query));
  const back = new URL(res.headers.location);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
  expect(back.searchParams.get('state')).toBe('kept');
  const token = await request(app)
    .post('/oauth/token')
    .auth(client.client_id, client.client_secret)
    .type('form')
    .send({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT_URI })
    .expect(200);
  expect(token.body.access_token).toEqual(expect.any(String));
});

it('sends the browser back to the endpoint when consent is still to be given, and the consent page follows', async () => {
  const user = await createUser();
  const client = await registerClient();
  const path = authorizePath({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'read' });
  const { agent, res } = await signIn(user, path);
  expect(res.headers.location).toBe(path);
  const consent = await agent.get(path).expect(200);
  expect(consent.text).toContain('Approve');
});

it('sends the browser back for a request that names a request object, and for one the endpoint refuses', async () => {
  const user = await createUser();
  const client = await registerClient();
  const base = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'read' };
  await approve((await signedInAgent(app, user)).agent, base);
  for (const path of [
    authorizePath({ ...base, request_uri: 'urn:ietf:params:oauth:request_uri:unknown' }),
    authorizePath({ ...base, scope: 'no-such-scope' }),
    `${authorizePath(base)}&state=a&state=b`,
  ]) {
    expect((await signIn(user, path)).res.headers.location).toBe(path);
  }
});
