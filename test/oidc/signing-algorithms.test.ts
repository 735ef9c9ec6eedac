// RS256 and ES256: the JWK Set publishes a current key of each; a client chooses how its ID tokens are
// signed (id_token_signed_response_alg) and may have userinfo as a signed JWT
// (userinfo_signed_response_alg), checked here by openid-client and jose as a relying party would.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import request from 'supertest';
import { authorizationUrl, insecure, useLiveApp } from '../helpers/oidc';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const liveApp = useLiveApp();
const CALLBACK = 'http://127.0.0.1:8400/callback';

async function register(metadata: Partial<oidc.ClientMetadata>) {
  const person = await createUser({ firstName: 'Mae', lastName: 'Jemison' });
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  const config = await oidc.dynamicClientRegistration(new URL(liveApp().issuer), { redirect_uris: [CALLBACK], ...metadata }, undefined, {
    ...insecure,
    initialAccessToken: login.body.accessToken,
  });
  return { config, person };
}

async function signIn(config: oidc.Configuration, person: { email: string; password: string }) {
  const nonce = oidc.randomNonce();
  const { url, verifier } = await authorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid profile', nonce });
  const { agent } = await signedInAgent(liveApp().app, person);
  const callback = await approve(agent, Object.fromEntries(url.searchParams));
  return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedNonce: nonce, idTokenExpected: true });
}

it('publishes an RS256 and an ES256 key, public parts only', async () => {
  const { body } = await request(liveApp().app).get('/oauth/jwks').expect(200);
  const byAlg = Object.fromEntries(body.keys.map((key: { alg: string }) => [key.alg, key]));
  expect(byAlg.RS256).toMatchObject({ kty: 'RSA', use: 'sig', kid: expect.any(String) });
  expect(byAlg.ES256).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'sig', kid: expect.any(String) });
  expect(JSON.stringify(body)).not.toMatch(/"d":/);
  const metadata = (await request(liveApp().app).get('/.well-known/openid-configuration')).body;
  expect(metadata.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
  expect(metadata.userinfo_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
});

it('signs ID tokens with ES256 and userinfo as an ES256 JWT for a client that registered them', async () => {
  const { config, person } = await register({ id_token_signed_response_alg: 'ES256', userinfo_signed_response_alg: 'ES256' });
  expect(config.clientMetadata()).toMatchObject({ id_token_signed_response_alg: 'ES256', userinfo_signed_response_alg: 'ES256' });
  const tokens = await signIn(config, person);
  expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('ES256');
  const sub = tokens.claims()!.sub;

  // openid-client checks the JWT's signature, iss and aud against what it registered.
  expect(await oidc.fetchUserInfo(config, tokens.access_token, sub)).toMatchObject({ sub, name: 'Mae Jemison' });
  const raw = await fetch(`${liveApp().issuer}/oauth/userinfo`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
  expect(raw.headers.get('content-type')).toMatch(/^application\/jwt/);
  expect(raw.headers.get('cache-control')).toBe('no-store');
  const jwks = createRemoteJWKSet(new URL(`${liveApp().issuer}/oauth/jwks`));
  const { payload, protectedHeader } = await jwtVerify(await raw.text(), jwks, {
    issuer: liveApp().issuer,
    audience: config.clientMetadata().client_id,
  });
  expect(protectedHeader.alg).toBe('ES256');
  expect(payload).toMatchObject({ sub, given_name: 'Mae' });
});

it('signs with RS256 and answers userinfo as JSON for a client that registered neither', async () => {
  const { config, person } = await register({});
  const tokens = await signIn(config, person);
  expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('RS256');
  const raw = await fetch(`${liveApp().issuer}/oauth/userinfo`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
  expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
});

it('takes an ES256 ID token as id_token_hint at the end-session endpoint', async () => {
  const { config, person } = await register({
    id_token_signed_response_alg: 'ES256',
    post_logout_redirect_uris: ['https://rp.example.com/bye'],
  });
  const tokens = await signIn(config, person);
  const url = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://rp.example.com/bye' });
  const res = await request(liveApp().app)
    .get(url.pathname + url.search)
    .expect(303);
  expect(res.headers.location).toBe('https://rp.example.com/bye');
});

it.each([
  ['id_token_signed_response_alg', 'none'],
  ['id_token_signed_response_alg', 'HS256'],
  ['userinfo_signed_response_alg', 'PS256'],
  ['userinfo_signed_response_alg', 7],
])('refuses %s %p as invalid_client_metadata', async (field, value) => {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  const res = await request(liveApp().app)
    .post('/oauth/register')
    .set('Authorization', `Bearer ${login.body.accessToken}`)
    .send({ redirect_uris: [CALLBACK], [field]: value })
    .expect(400);
  expect(res.body).toEqual({ error: 'invalid_client_metadata', error_description: `${field} must be one of RS256, ES256` });
});
