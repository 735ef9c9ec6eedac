// JARM (JWT Secured Authorization Response Mode): response_mode jwt, query.jwt, fragment.jwt and
// form_post.jwt answer with one `response` JWT signed by the key ring (RS256, or the client's
// authorization_signed_response_alg), verified here with jose against /oauth/jwks: iss, aud, exp and
// the values inside; errors are signed too; query.jwt is refused for tokens.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import request from 'supertest';
import { useTestDatabase } from '../helpers/db';
import { registrationAnswer, useLiveApp } from '../helpers/oidc';
import { approve, decided, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const liveApp = useLiveApp();
const CALLBACK = 'http://127.0.0.1:8400/callback';

async function register(metadata: Record<string, unknown> = {}) {
  const res = await registrationAnswer(liveApp().app, {
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'implicit'],
    ...metadata,
  });
  expect(res.status).toBe(201);
  return res.body as { client_id: string };
}

/** The response JWT, verified as a client would; its claims. */
async function opened(response: string, clientId: string) {
  const keys = createRemoteJWKSet(new URL(`${liveApp().issuer}/oauth/jwks`));
  const { payload } = await jwtVerify(response, keys, { issuer: liveApp().issuer, audience: clientId });
  expect(payload.exp! - payload.iat!).toBe(300);
  return payload;
}

it('lists the JARM modes and algorithms in discovery', async () => {
  const { body } = await request(liveApp().app).get('/.well-known/openid-configuration').expect(200);
  expect(body.response_modes_supported).toEqual(expect.arrayContaining(['jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt']));
  expect(body.authorization_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
});

it.each([
  ['jwt', 'code', 'search'],
  ['query.jwt', 'code', 'search'],
  ['fragment.jwt', 'code', 'hash'],
  ['jwt', 'code id_token', 'hash'],
] as const)('answers response_mode=%s for %s with one signed response in the %s', async (mode, responseType, where) => {
  const client = await register();
  const { agent } = await signedInAgent(liveApp().app);
  const callback = await approve(agent, {
    client_id: client.client_id,
    response_type: responseType,
    redirect_uri: CALLBACK,
    scope: 'openid',
    state: 'jarm-state',
    nonce: 'n',
    response_mode: mode,
  });
  const carried = new URLSearchParams((where === 'search' ? callback.search : callback.hash).slice(1));
  expect([...carried.keys()]).toEqual(['response']);
  expect(decodeProtectedHeader(carried.get('response')!).alg).toBe('RS256');
  const claims = await opened(carried.get('response')!, client.client_id);
  expect(claims).toMatchObject({ code: expect.any(String), state: 'jarm-state' });
  if (responseType === 'code id_token') expect(claims.id_token).toEqual(expect.any(String));
});

it('posts the signed response with form_post.jwt, signed with the algorithm the client registered', async () => {
  const client = await register({ authorization_signed_response_alg: 'ES256' });
  const { agent } = await signedInAgent(liveApp().app);
  const query = { client_id: client.client_id, response_type: 'code', redirect_uri: CALLBACK, response_mode: 'form_post.jwt' };
  const page = await decided(agent, query);
  expect(page.status).toBe(200);
  const response = /name="response" value="([^"]+)"/.exec(page.text)![1];
  expect(page.text).not.toMatch(/name="code"/);
  expect(decodeProtectedHeader(response).alg).toBe('ES256');
  expect(await opened(response, client.client_id)).toMatchObject({ code: expect.any(String) });
});

it('signs errors too, and refuses query.jwt for a response type with tokens', async () => {
  const client = await register();
  const { agent } = await signedInAgent(liveApp().app);
  const denied = await approve(
    agent,
    { client_id: client.client_id, response_type: 'code', redirect_uri: CALLBACK, state: 's', response_mode: 'jwt' },
    'deny',
  );
  expect(await opened(denied.searchParams.get('response')!, client.client_id)).toMatchObject({ error: 'access_denied', state: 's' });

  const refused = await agent
    .get('/oauth/authorize')
    .query({ client_id: client.client_id, response_type: 'token', redirect_uri: CALLBACK, state: 's', response_mode: 'query.jwt' })
    .expect(302);
  const carried = new URLSearchParams(new URL(refused.headers.location).hash.slice(1));
  expect(await opened(carried.get('response')!, client.client_id)).toMatchObject({ error: 'invalid_request', state: 's' });
});
