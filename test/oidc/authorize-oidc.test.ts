// The OpenID Connect parameters of the authorization endpoint (prompt, max_age, login_hint,
// ui_locales, response_mode), RFC 9207's iss, public clients' PKCE, and userinfo's errors.
import request from 'supertest';
import { halfHash } from '../../src/oauth/oidc/id-tokens.service';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import { testApp } from '../helpers/app';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, codeExchange, passwordGrant, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();

const ISSUER = 'https://id.example.com';
const clock = movableClock();
const app = testApp({ PUBLIC_URL: ISSUER }, { clock });

const claimsOf = (idToken: string) => JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
const codeRequest = (clientId: string, extra: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: REDIRECT_URI,
  scope: 'openid',
  state: 's1',
  ...extra,
});

describe('prompt', () => {
  it('none answers login_required by redirect when nobody is signed in', async () => {
    const client = await registerClient();
    const res = await request(app)
      .get('/oauth/authorize')
      .query(codeRequest(client.client_id, { prompt: 'none' }))
      .expect(302);
    const location = new URL(res.headers.location);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'login_required', state: 's1', iss: ISSUER });
  });

  it('none answers consent_required by redirect to a signed-in person, since consent needs the page', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const res = await agent
      .get('/oauth/authorize')
      .query(codeRequest(client.client_id, { prompt: 'none' }))
      .expect(302);
    expect(new URL(res.headers.location).searchParams.get('error')).toBe('consent_required');
  });

  it('login makes a signed-in person sign in again, then comes back without it', async () => {
    const client = await registerClient();
    const person = await createUser();
    const { agent } = await signedInAgent(app, person);
    const res = await agent
      .get('/oauth/authorize')
      .query(codeRequest(client.client_id, { prompt: 'login' }))
      .expect(302);
    const login = new URL(res.headers.location, ISSUER);
    expect(login.pathname).toBe('/login');
    expect(login.searchParams.get('prompt')).toBe('login');
    const returnTo = login.searchParams.get('return_to')!;
    expect(returnTo).not.toContain('prompt');
    const page = await agent.get(login.pathname + login.search).expect(200);
    expect(page.text).toContain('name="password"');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
    const signedIn = await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrf, email: person.email, password: person.password, return_to: returnTo })
      .expect(303);
    expect(signedIn.headers.location).toBe(returnTo);
    await agent.get(returnTo).expect(200);
  });

  it('consent and select_account show the consent page', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    await agent
      .get('/oauth/authorize')
      .query(codeRequest(client.client_id, { prompt: 'consent select_account' }))
      .expect(200);
  });

  it('refuses an unknown value or none with another', async () => {
    const client = await registerClient();
    // Signed in: a self-registered client gets error redirects only for someone signed in (RFC 9700 §4.11.2).
    const { agent } = await signedInAgent(app);
    for (const prompt of ['sometimes', 'none login']) {
      const res = await agent.get('/oauth/authorize').query(codeRequest(client.client_id, { prompt })).expect(302);
      expect(new URL(res.headers.location).searchParams.get('error')).toBe('invalid_request');
    }
  });
});

describe('max_age, login_hint, ui_locales', () => {
  it('sends a person signed in longer ago than max_age to sign in again, and accepts a recent sign-in', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    await agent
      .get('/oauth/authorize')
      .query(codeRequest(client.client_id, { max_age: '3600' }))
      .expect(200);
    clock.move(1100);
    const stale = await agent
      .get('/oauth/authorize')
      .query(codeRequest(client.client_id, { max_age: '1' }))
      .expect(302);
    expect(new URL(stale.headers.location, ISSUER).pathname).toBe('/login');
  });

  it('puts auth_time in the ID token', async () => {
    const client = await registerClient();
    const before = Math.floor(Date.now() / 1000);
    const { agent } = await signedInAgent(app);
    const callback = await approve(agent, codeRequest(client.client_id, { max_age: '600' }));
    const res = await request(app)
      .post('/oauth/token')
      .type('form')
      .send(codeExchange(client, callback.searchParams.get('code')!))
      .expect(200);
    const claims = claimsOf(res.body.id_token as string);
    expect(claims.auth_time).toBeGreaterThanOrEqual(before);
    expect(claims.nonce).toBeUndefined();
    expect(claims.at_hash).toBe(halfHash(res.body.access_token as string));
  });

  it('fills the sign-in form with login_hint and ignores ui_locales', async () => {
    const client = await registerClient();
    const res = await request(app)
      .get('/oauth/authorize')
      .query(codeRequest(client.client_id, { login_hint: 'ada@example.com', ui_locales: 'fr-CA fr' }))
      .expect(302);
    const page = await request(app).get(res.headers.location).expect(200);
    expect(page.text).toContain('value="ada@example.com"');
  });

  it('refuses a max_age that is not a number of seconds', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const res = await agent
      .get('/oauth/authorize')
      .query(codeRequest(client.client_id, { max_age: '-5' }))
      .expect(302);
    expect(new URL(res.headers.location).searchParams.get('error')).toBe('invalid_request');
  });
});

describe('authorization responses', () => {
  it('carry iss (RFC 9207) on success and on denial, and the exact state', async () => {
    const client = await registerClient();
    const state = 'state with spaces & symbols ~!';
    const { agent } = await signedInAgent(app);
    const approved = await approve(agent, codeRequest(client.client_id, { state }));
    expect(approved.searchParams.get('iss')).toBe(ISSUER);
    expect(approved.searchParams.get('state')).toBe(state);
    // prompt=consent: the approval just given would otherwise answer at once.
    const denied = await approve(agent, codeRequest(client.client_id, { prompt: 'consent' }), 'deny');
    expect(Object.fromEntries(denied.searchParams)).toMatchObject({ error: 'access_denied', iss: ISSUER });
  });

  it('put the code in the fragment with response_mode=fragment, and refuse tokens in the query', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const fragment = await approve(agent, codeRequest(client.client_id, { response_mode: 'fragment' }));
    const values = new URLSearchParams(fragment.hash.slice(1));
    expect(values.get('code')).toEqual(expect.any(String));
    expect(values.get('iss')).toBe(ISSUER);
    expect(fragment.search).toBe('');
    const query = await agent
      .get('/oauth/authorize')
      .query({ ...codeRequest(client.client_id), response_type: 'token', response_mode: 'query' })
      .expect(302);
    expect(new URL(query.headers.location).hash).toContain('error=invalid_request');
  });

  it('echo a nonce exactly in the ID token', async () => {
    const client = await registerClient();
    const nonce = 'n-0S6_WzA2Mj';
    const { agent } = await signedInAgent(app);
    const callback = await approve(agent, codeRequest(client.client_id, { nonce }));
    const res = await request(app)
      .post('/oauth/token')
      .type('form')
      .send(codeExchange(client, callback.searchParams.get('code')!))
      .expect(200);
    expect(claimsOf(res.body.id_token as string).nonce).toBe(nonce);
  });

  it('give no ID token without the openid scope (seed responses unchanged)', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const callback = await approve(agent, codeRequest(client.client_id, { scope: 'read' }));
    const res = await request(app)
      .post('/oauth/token')
      .type('form')
      .send(codeExchange(client, callback.searchParams.get('code')!))
      .expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
  });
});

describe('the implicit flow of OpenID Connect', () => {
  it('returns an ID token (with at_hash for id_token token) in the fragment, for clients allowed implicit', async () => {
    const client = await registerClient({ grants: ['implicit'] });
    const { agent } = await signedInAgent(app);
    const idOnly = await approve(agent, { ...codeRequest(client.client_id, { nonce: 'n1' }), response_type: 'id_token' });
    const only = new URLSearchParams(idOnly.hash.slice(1));
    expect(only.get('access_token')).toBeNull();
    expect(claimsOf(only.get('id_token')!)).toMatchObject({ aud: client.client_id, nonce: 'n1', iss: ISSUER });
    const both = await approve(agent, {
      ...codeRequest(client.client_id, { nonce: 'n2', prompt: 'consent' }),
      response_type: 'token id_token',
    });
    const values = new URLSearchParams(both.hash.slice(1));
    expect(claimsOf(values.get('id_token')!).at_hash).toBe(halfHash(values.get('access_token')!));
    expect(values.get('state')).toBe('s1');
  });

  it('needs a nonce and the openid scope', async () => {
    const client = await registerClient({ grants: ['implicit'] });
    const { agent } = await signedInAgent(app);
    for (const extra of [{}, { nonce: 'n', scope: 'read' }] as Record<string, string>[]) {
      const res = await agent
        .get('/oauth/authorize')
        .query({ ...codeRequest(client.client_id, extra), response_type: 'id_token' })
        .expect(302);
      expect(new URL(res.headers.location).hash).toContain('error=invalid_request');
    }
  });
});

describe('public clients', () => {
  async function publicClient(): Promise<string> {
    const clientId = `public-${Math.random().toString(36).slice(2)}`;
    await ClientModel.create({
      _id: clientId,
      name: 'SPA',
      redirectUri: REDIRECT_URI,
      grants: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'none',
      createdAt: new Date(),
    });
    return clientId;
  }

  it.each([
    ['no code_challenge', {}],
    ['a plain code_challenge', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }],
  ])('must use PKCE with S256: %s is invalid_request', async (_case, extra) => {
    const res = await request(app)
      .get('/oauth/authorize')
      .query(codeRequest(await publicClient(), extra))
      .expect(302);
    expect(new URL(res.headers.location).searchParams.get('error')).toBe('invalid_request');
  });

  it('cannot use a secret-based grant, and a confidential client cannot skip its secret on refresh', async () => {
    const publicId = await publicClient();
    const password = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'password', client_id: publicId, username: 'x@example.com', password: 'whatever' });
    expect(password.body.error).toMatch(/invalid_client|invalid_request|unauthorized_client/);
    const { client, tokens } = await passwordGrant(app);
    const refresh = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: client.client_id, refresh_token: tokens.refresh_token });
    expect(refresh.status).toBe(401);
    expect(refresh.body.error).toBe('invalid_client');
  });
});

describe('userinfo', () => {
  it('answers 401 invalid_token for a bad token and 403 insufficient_scope without openid', async () => {
    const bad = await request(app).get('/oauth/userinfo').set('Authorization', 'Bearer nope').expect(401);
    expect(bad.body.error).toBe('invalid_token');
    expect(bad.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    const none = await request(app).get('/oauth/userinfo').expect(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"$/);
    const { tokens } = await passwordGrant(app, { scope: 'read' });
    const narrow = await request(app).get('/oauth/userinfo').set('Authorization', `Bearer ${tokens.access_token}`).expect(403);
    expect(narrow.body.error).toBe('insufficient_scope');
  });

  it('releases only sub without profile or email, and answers POST too', async () => {
    const { tokens, user } = await passwordGrant(app, { scope: 'openid' });
    const res = await request(app).post('/oauth/userinfo').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
    expect(res.body).toEqual({ sub: user.id });
  });
});
