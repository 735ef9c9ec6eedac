// Request objects by value (OIDC Core 6.1, RFC 9101): signed with the client's registered keys (built by
// openid-client's buildAuthorizationUrlWithJAR), or unsigned only for a client that registered
// or unsigned unless the client registered another algorithm; their parameters win over the query's;
// every way one can be wrong is invalid_request_object, back at the registered redirect URI
// (request_uri: request-uri.test.ts).
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import * as oidc from 'openid-client';
import request from 'supertest';
import { insecure, useLiveApp } from '../helpers/oidc';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const liveApp = useLiveApp();
const CALLBACK = 'http://127.0.0.1:8400/callback';

let key: { privateKey: CryptoKey; jwk: Record<string, unknown> };
beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  key = { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: 'ro-1', alg: 'ES256', use: 'sig' } };
});

/** Approves the request a consent page shows (its form names it; the server kept it): the `state` the client gets back. */
async function approvedState(agent: ReturnType<typeof request.agent>, page: string): Promise<string | null> {
  const fields = Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
  const decided = await agent
    .post('/oauth/authorize')
    .type('form')
    .send({ ...fields, decision: 'approve' })
    .expect(302);
  return new URL(decided.headers.location).searchParams.get('state');
}

async function register(metadata: Record<string, unknown> = {}) {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  const config = await oidc.dynamicClientRegistration(
    new URL(liveApp().issuer),
    { redirect_uris: [CALLBACK], jwks: { keys: [key.jwk] } as oidc.ClientMetadata['jwks'], ...metadata },
    undefined,
    { ...insecure, initialAccessToken: login.body.accessToken },
  );
  return config;
}

/** A request object signed (or not) as a test wants it. */
async function requestObject(claims: Record<string, unknown>, signer: CryptoKey | 'none' = key.privateKey) {
  if (signer === 'none') {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${encode({ alg: 'none' })}.${encode(claims)}.`;
  }
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'ro-1' }).setIssuedAt().setExpirationTime('5m').sign(signer);
}

const errorOf = (location: string) => Object.fromEntries(new URL(location).searchParams);

it('signs a person in from a request object openid-client signed, with state and nonce from inside it', async () => {
  const config = await register();
  const nonce = oidc.randomNonce();
  const state = oidc.randomState();
  const verifier = oidc.randomPKCECodeVerifier();
  const url = await oidc.buildAuthorizationUrlWithJAR(
    config,
    {
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid profile',
      nonce,
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    },
    { key: key.privateKey, kid: 'ro-1' },
  );
  expect(url.searchParams.get('nonce')).toBeNull();
  const { agent } = await signedInAgent(liveApp().app);
  const callback = await approve(agent, Object.fromEntries(url.searchParams));
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    expectedState: state,
    idTokenExpected: true,
  });
  expect(tokens.claims()!.nonce).toBe(nonce);
});

it('lets the parameters inside win over the query, and keeps them through sign-in', async () => {
  const config = await register();
  const clientId = config.clientMetadata().client_id;
  const signed = await requestObject({
    iss: clientId,
    aud: liveApp().issuer,
    client_id: clientId,
    response_type: 'code',
    scope: 'openid',
    state: 'inside',
    redirect_uri: CALLBACK,
  });
  const query = { client_id: clientId, response_type: 'code', scope: 'read', state: 'outside', request: signed };
  const anonymous = await request(liveApp().app).get('/oauth/authorize').query(query).expect(302);
  const returnTo = new URL(anonymous.headers.location, liveApp().issuer).searchParams.get('return_to')!;
  expect(returnTo).not.toContain('request=');
  expect(new URL(returnTo, liveApp().issuer).searchParams.get('state')).toBe('inside');
  const { agent } = await signedInAgent(liveApp().app);
  const consent = await agent.get('/oauth/authorize').query(query).expect(200);
  expect(consent.text).toContain('<strong>openid</strong>');
  expect(consent.text).not.toContain('<strong>read</strong>');
  expect(await approvedState(agent, consent.text)).toBe('inside');
});

it('takes an unsigned request object unless the client registered a signing algorithm', async () => {
  const unsignedClient = await register({ request_object_signing_alg: 'none' });
  const id = unsignedClient.clientMetadata().client_id;
  const { agent } = await signedInAgent(liveApp().app);
  const unsigned = await requestObject(
    { client_id: id, response_type: 'code', scope: 'openid', redirect_uri: CALLBACK, state: 'plain' },
    'none',
  );
  const consent = await agent.get('/oauth/authorize').query({ client_id: id, response_type: 'code', request: unsigned }).expect(200);
  expect(await approvedState(agent, consent.text)).toBe('plain');

  const other = (await register({ request_object_signing_alg: 'ES256' })).clientMetadata().client_id;
  const refused = await agent
    .get('/oauth/authorize')
    .query({
      client_id: other,
      response_type: 'code',
      redirect_uri: CALLBACK,
      state: 'q',
      request: await requestObject({ client_id: other, scope: 'openid' }, 'none'),
    })
    .expect(302);
  expect(errorOf(refused.headers.location)).toMatchObject({ error: 'invalid_request_object', state: 'q' });
});

it('takes a request object without exp or iat, signed or not, as the OpenID Foundation OIDC plans send them, and bounds an exp that is there', async () => {
  const unsignedClient = await register({ request_object_signing_alg: 'none' });
  const id = unsignedClient.clientMetadata().client_id;
  const { agent } = await signedInAgent(liveApp().app);
  const now = Math.floor(Date.now() / 1000);
  const send = async (claims: Record<string, unknown>) =>
    agent.get('/oauth/authorize').query({
      client_id: id,
      response_type: 'code',
      redirect_uri: CALLBACK,
      state: 'q',
      request: await requestObject({ client_id: id, scope: 'openid', ...claims }, 'none'),
    });
  expect((await send({})).status).toBe(200);
  expect(errorOf((await send({ exp: now + 3600 })).headers.location)).toMatchObject({
    error: 'invalid_request_object',
    error_description: 'the request object lives longer than 600 s (exp)',
  });
  expect(errorOf((await send({ iat: 'yesterday' })).headers.location)).toMatchObject({
    error: 'invalid_request_object',
    error_description: "the request object's iat is not a time",
  });

  const signedClient = (await register()).clientMetadata().client_id;
  const signedWith = (exp?: string) => {
    const jwt = new SignJWT({ client_id: signedClient, scope: 'openid' }).setProtectedHeader({ alg: 'ES256', kid: 'ro-1' });
    return (exp ? jwt.setExpirationTime(exp) : jwt).sign(key.privateKey);
  };
  const sendSigned = async (exp?: string) =>
    agent
      .get('/oauth/authorize')
      .query({ client_id: signedClient, response_type: 'code', redirect_uri: CALLBACK, request: await signedWith(exp) });
  // OpenID Connect Core §6.1 asks for no exp (oidcc-request-uri-signed-rs256 sends none); one that is there is capped.
  expect((await sendSigned()).status).toBe(200);
  expect((await sendSigned('10m')).status).toBe(200);
  expect(errorOf((await sendSigned('1h')).headers.location)).toMatchObject({
    error: 'invalid_request_object',
    error_description: 'the request object lives longer than 600 s (exp)',
  });
});

describe('refusals', () => {
  let clientId: string;
  let agent: Awaited<ReturnType<typeof signedInAgent>>['agent'];
  beforeAll(async () => {
    clientId = (await register()).clientMetadata().client_id;
    ({ agent } = await signedInAgent(liveApp().app));
  });

  const sent = (signed: string, extra: Record<string, string> = {}) =>
    agent
      .get('/oauth/authorize')
      .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, state: 's', request: signed, ...extra });

  it.each([
    [
      'signed with another key',
      async () => requestObject({ scope: 'openid' }, (await generateKeyPair('ES256')).privateKey),
      'the request object is invalid (invalid signature)',
    ],
    [
      'for another server',
      async () => requestObject({ aud: 'https://other.example.com', scope: 'openid' }),
      'the request object is meant for another server (aud)',
    ],
    [
      'from another client',
      async () => requestObject({ iss: 'someone-else', scope: 'openid' }),
      'the request object was issued by another client (iss)',
    ],
    [
      'expired',
      async () =>
        new SignJWT({ scope: 'openid' })
          .setProtectedHeader({ alg: 'ES256', kid: 'ro-1' })
          .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
          .sign(key.privateKey),
      'the request object is invalid (jwt expired)',
    ],
    [
      'living longer than ten minutes',
      async () =>
        new SignJWT({ scope: 'openid' })
          .setProtectedHeader({ alg: 'ES256', kid: 'ro-1' })
          .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
          .sign(key.privateKey),
      'the request object lives longer than 600 s (exp)',
    ],
    [
      'made more than ten minutes ago',
      async () =>
        new SignJWT({ scope: 'openid' })
          .setProtectedHeader({ alg: 'ES256', kid: 'ro-1' })
          .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
          .setExpirationTime('5m')
          .sign(key.privateKey),
      'the request object was made more than 600 s ago (iat)',
    ],
    ['naming another client_id', async () => requestObject({ client_id: 'another', scope: 'openid' }), 'client_id differs from the query'],
    [
      'with another response_type',
      async () => requestObject({ response_type: 'token', scope: 'openid' }),
      'response_type differs from the query',
    ],
    ['that is no JWT', async () => 'not-a-jwt', 'request is not a JWT'],
    [
      'signed with HS256 by a client without a sealed secret',
      async () => new SignJWT({ scope: 'openid' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32))),
      'no key of this client matches the request object',
    ],
  ])('answers one %s with invalid_request_object at the redirect URI', async (_case, build, description) => {
    const res = await sent(await build()).expect(302);
    expect(errorOf(res.headers.location)).toMatchObject({ error: 'invalid_request_object', error_description: description, state: 's' });
  });
});

it('says in discovery what it supports', async () => {
  const { body } = await request(liveApp().app).get('/.well-known/openid-configuration').expect(200);
  expect(body).toMatchObject({ request_parameter_supported: true, request_uri_parameter_supported: true });
  expect(body.request_object_signing_alg_values_supported).toEqual(['none', 'RS256', 'PS256', 'ES256', 'HS256']);
});

it('checks an HS256 request object with the secret of a client_secret_jwt client', async () => {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  const registered = await request(liveApp().app)
    .post('/oauth/register')
    .set('Authorization', `Bearer ${login.body.accessToken}`)
    .send({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'client_secret_jwt' })
    .expect(201);
  const { client_id: clientId, client_secret: secret } = registered.body;
  const signed = await new SignJWT({ client_id: clientId, scope: 'openid', state: 'hmac' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(secret));
  const { agent } = await signedInAgent(liveApp().app);
  const consent = await agent
    .get('/oauth/authorize')
    .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, request: signed })
    .expect(200);
  expect(await approvedState(agent, consent.text)).toBe('hmac');
});
