// The hybrid flow (OpenID Connect Core §3.3): `code id_token`, `code token` and `code id_token token`
// answer in the fragment (or form_post) with a code and the tokens asked for; the ID token's c_hash
// and at_hash match them and it carries the nonce; the code is then exchanged as usual; a hybrid
// request without a nonce, with response_mode=query, or from a client without both grants is refused.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import request from 'supertest';
import { halfHash } from '../../src/oauth/oidc/id-tokens.service';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { registrationAnswer, useLiveApp } from '../helpers/oidc';
import { approve, decided, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const liveApp = useLiveApp();
const CALLBACK = 'http://127.0.0.1:8400/callback';

async function register(metadata: Record<string, unknown> = {}) {
  const res = await registrationAnswer(liveApp().app, {
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'implicit', 'refresh_token'],
    response_types: ['code', 'code id_token', 'code token', 'code id_token token'],
    ...metadata,
  });
  expect(res.status).toBe(201);
  return res.body as { client_id: string; client_secret: string; response_types: string[] };
}

const fragmentOf = (url: URL) => Object.fromEntries(new URLSearchParams(url.hash.slice(1)));

async function verified(idToken: string, clientId: string) {
  const keys = createRemoteJWKSet(new URL(`${liveApp().issuer}/oauth/jwks`));
  return (await jwtVerify(idToken, keys, { issuer: liveApp().issuer, audience: clientId })).payload;
}

it('lists the hybrid response types in discovery and in a registration that holds both grants', async () => {
  const { body } = await request(liveApp().app).get('/.well-known/openid-configuration').expect(200);
  expect(body.response_types_supported).toEqual(expect.arrayContaining(['code id_token', 'code token', 'code id_token token']));
  expect((await register()).response_types).toEqual(expect.arrayContaining(['code id_token', 'code token', 'code id_token token']));
});

it.each([
  ['code id_token', { code: true, idToken: true, accessToken: false }],
  ['code token', { code: true, idToken: false, accessToken: true }],
  ['code id_token token', { code: true, idToken: true, accessToken: true }],
])('answers %s in the fragment, with an ID token tied to what comes beside it', async (responseType, expected) => {
  const client = await register();
  const { agent } = await signedInAgent(liveApp().app);
  const callback = await approve(agent, {
    client_id: client.client_id,
    response_type: responseType,
    redirect_uri: CALLBACK,
    scope: 'openid profile',
    state: 'h',
    nonce: 'n-hybrid',
  });
  expect(callback.search).toBe('');
  const answer = fragmentOf(callback);
  expect(answer).toMatchObject({ state: 'h', iss: liveApp().issuer });
  expect(answer.code !== undefined).toBe(expected.code);
  expect(answer.id_token !== undefined).toBe(expected.idToken);
  expect(answer.access_token !== undefined).toBe(expected.accessToken);
  if (answer.id_token) {
    const claims = await verified(answer.id_token, client.client_id);
    expect(claims).toMatchObject({ nonce: 'n-hybrid', c_hash: halfHash(answer.code) });
    expect(claims.at_hash).toBe(answer.access_token ? halfHash(answer.access_token) : undefined);
  }
  if (answer.access_token) {
    await request(liveApp().app).get('/oauth/userinfo').set('Authorization', `Bearer ${answer.access_token}`).expect(200);
  }
  // The code is exchanged as in the code flow; its ID token carries the same nonce.
  const tokens = await request(liveApp().app)
    .post('/oauth/token')
    .auth(client.client_id, client.client_secret)
    .type('form')
    .send({ grant_type: 'authorization_code', code: answer.code, redirect_uri: CALLBACK })
    .expect(200);
  expect(await verified(tokens.body.id_token, client.client_id)).toMatchObject({ nonce: 'n-hybrid' });
});

it('answers a hybrid request by form_post when asked', async () => {
  const client = await register();
  const { agent } = await signedInAgent(liveApp().app);
  const query = {
    client_id: client.client_id,
    response_type: 'code id_token',
    redirect_uri: CALLBACK,
    scope: 'openid',
    nonce: 'n',
    response_mode: 'form_post',
  };
  const page = await decided(agent, query);
  expect(page.status).toBe(200);
  expect(page.text).toContain(`action="${CALLBACK}"`);
  expect(page.text).toMatch(/name="code"/);
  expect(page.text).toMatch(/name="id_token"/);
});

describe('refusals', () => {
  it('refuses a hybrid request with an ID token but no nonce, and one with response_mode=query', async () => {
    const client = await register();
    const { agent } = await signedInAgent(liveApp().app);
    const base = { client_id: client.client_id, response_type: 'code id_token', redirect_uri: CALLBACK, scope: 'openid', state: 's' };
    const noNonce = await agent.get('/oauth/authorize').query(base).expect(302);
    expect(fragmentOf(new URL(noNonce.headers.location))).toMatchObject({
      error: 'invalid_request',
      error_description: 'response_type code id_token needs the openid scope and a nonce',
    });
    const query = await agent
      .get('/oauth/authorize')
      .query({ ...base, nonce: 'n', response_mode: 'query' })
      .expect(302);
    expect(fragmentOf(new URL(query.headers.location)).error).toBe('invalid_request');
  });

  it('refuses a hybrid response type to a client without the implicit grant, at registration and at the endpoint', async () => {
    const person = await createUser();
    const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
    const refused = await request(liveApp().app)
      .post('/oauth/register')
      .set('Authorization', `Bearer ${login.body.accessToken}`)
      .send({ redirect_uris: [CALLBACK], grant_types: ['authorization_code'], response_types: ['code id_token'] })
      .expect(400);
    expect(refused.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'response_type code id_token needs the grant types authorization_code and implicit',
    });
    const codeOnly = await register({ grant_types: ['authorization_code'], response_types: ['code'] });
    const { agent } = await signedInAgent(liveApp().app);
    const res = await agent
      .get('/oauth/authorize')
      .query({ client_id: codeOnly.client_id, response_type: 'code token', redirect_uri: CALLBACK, scope: 'openid', nonce: 'n' })
      .expect(302);
    expect(fragmentOf(new URL(res.headers.location)).error).toBe('unauthorized_client');
  });
});
