// Redirect URIs match as exact strings (RFC 9700 §2.1; issue 48, finding 8), at the authorization
// endpoint, PAR and the token endpoint, with RFC 8252 §7.3's one exception: a loopback IP redirect
// (http://127.0.0.1/..., http://[::1]/...) takes any port at request time, and the browser goes back
// to the port the request named.
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { approve, clientSecretPost, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

const REGISTERED = 'https://fapi-rp.example/cb';
const SPELLINGS = [
  'https://FAPI-RP.EXAMPLE/cb',
  'https://fapi-rp.example:443/cb',
  'https://fapi-rp.example/x/../cb',
  'https://fapi-rp.example/cb/',
];

const push = (client: { client_id: string; client_secret: string }, redirectUri: string) =>
  request(app)
    .post('/oauth/par')
    .type('form')
    .send({ ...clientSecretPost(client), response_type: 'code', redirect_uri: redirectUri, scope: 'read' });

describe('another spelling of a registered redirect URI', () => {
  it.each(SPELLINGS)('is refused at the authorization endpoint and at PAR: %s', async (spelling) => {
    const client = await registerClient({ redirect_uri: REGISTERED });
    const { agent } = await signedInAgent(app);
    const page = await agent.get('/oauth/authorize').query({ response_type: 'code', client_id: client.client_id, redirect_uri: spelling });
    expect(page.status).toBe(400);
    expect(page.text).toContain('Invalid redirect address');
    const pushed = await push(client, spelling);
    expect(pushed.status).toBe(400);
    expect(pushed.body.error).toBe('invalid_request');
    // The exact string is taken by both.
    await agent.get('/oauth/authorize').query({ response_type: 'code', client_id: client.client_id, redirect_uri: REGISTERED }).expect(200);
    expect((await push(client, REGISTERED)).status).toBe(201);
  });
});

describe('a loopback IP redirect (RFC 8252 §7.3)', () => {
  it.each([
    ['http://127.0.0.1/callback', 'http://127.0.0.1:54321/callback'],
    ['http://127.0.0.1:8400/callback', 'http://127.0.0.1:61000/callback'],
    ['http://[::1]/callback', 'http://[::1]:49152/callback'],
  ])(
    'registered as %s takes the port the app picked (%s), back to that port, and the code wants it at the token endpoint',
    async (registered, asked) => {
      const client = await registerClient({ redirect_uri: registered });
      const { agent } = await signedInAgent(app);
      const location = await approve(agent, { response_type: 'code', client_id: client.client_id, redirect_uri: asked });
      expect(`${location.origin}${location.pathname}`).toBe(asked);
      const code = location.searchParams.get('code')!;
      const exchange = (redirectUri: string) =>
        request(app)
          .post('/oauth/token')
          .type('form')
          .send({ grant_type: 'authorization_code', ...clientSecretPost(client), code, redirect_uri: redirectUri });
      expect((await exchange(registered)).body.error).toBe('invalid_grant');
    },
  );

  it('keeps the path exact, and gives localhost no such exception', async () => {
    const loopback = await registerClient({ redirect_uri: 'http://127.0.0.1/callback' });
    const named = await registerClient({ redirect_uri: 'http://localhost:8400/callback' });
    const { agent } = await signedInAgent(app);
    const ask = (client: { client_id: string }, redirectUri: string) =>
      agent.get('/oauth/authorize').query({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri });
    expect((await ask(loopback, 'http://127.0.0.1:5000/other')).status).toBe(400);
    expect((await ask(loopback, 'https://127.0.0.1:5000/callback')).status).toBe(400);
    expect((await ask(named, 'http://localhost:8401/callback')).status).toBe(400);
    expect((await ask(named, 'http://localhost:8400/callback')).status).toBe(200);
  });
});
