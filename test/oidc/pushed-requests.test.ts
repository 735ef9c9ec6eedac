// Pushed authorization requests (RFC 9126) through HTTP: openid-client's buildAuthorizationUrlWithPAR
// for confidential, private_key_jwt and public clients; the request checked at the push (JSON
// errors); a request_uri bound to its client, used once (100 at once on two instances: one code),
// waiting 60 s for the browser and then long enough to sign in (a moved clock); PAR required per
// client and server-wide; and the endpoint's budgets.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import * as oidc from 'openid-client';
import request from 'supertest';
import { testApp } from '../helpers/app';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { insecure, useLiveApp } from '../helpers/oidc';
import { approve, csrfFrom, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const clock = movableClock();
const liveApp = useLiveApp({}, { clock });
const CALLBACK = 'http://127.0.0.1:8400/callback';

let key: { privateKey: CryptoKey; jwk: Record<string, unknown> };
beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  key = { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: 'par-1', alg: 'ES256', use: 'sig' } };
});

async function register(metadata: Record<string, unknown> = {}, clientAuth?: oidc.ClientAuth) {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  return oidc.dynamicClientRegistration(new URL(liveApp().issuer), { redirect_uris: [CALLBACK], ...metadata }, clientAuth, {
    ...insecure,
    initialAccessToken: login.body.accessToken,
  });
}

/** Pushes with openid-client: the authorization URL it builds (client_id and request_uri only) and the PKCE verifier. */
async function pushed(config: oidc.Configuration, extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = await oidc.buildAuthorizationUrlWithPAR(config, {
    redirect_uri: CALLBACK,
    scope: 'openid',
    state: 'pushed-state',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  return { url, query: Object.fromEntries(url.searchParams), verifier };
}

/** Sends the raw push, for the errors openid-client would throw on. */
const push = (fields: Record<string, string>, basic?: [string, string]) => {
  const sent = request(liveApp().app).post('/oauth/par').type('form');
  return (basic ? sent.auth(...basic) : sent).send(fields);
};

const errorOf = (location: string) => Object.fromEntries(new URL(location).searchParams);

it('says where to push in discovery, and that pushing is not required by default', async () => {
  const { body } = await request(liveApp().app).get('/.well-known/openid-configuration').expect(200);
  expect(body).toMatchObject({
    pushed_authorization_request_endpoint: `${liveApp().issuer}/oauth/par`,
    require_pushed_authorization_requests: false,
  });
});

it('signs a person in from a request a confidential client pushed, and the request_uri works once', async () => {
  const config = await register();
  const { url, query, verifier } = await pushed(config, { nonce: 'n-1' });
  expect(Object.keys(query).sort()).toEqual(['client_id', 'request_uri']);
  expect(query.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[\w-]+$/);
  const { agent } = await signedInAgent(liveApp().app);
  const callback = await approve(agent, query);
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: 'pushed-state',
    expectedNonce: 'n-1',
    idTokenExpected: true,
  });
  expect(tokens.claims()!.nonce).toBe('n-1');
  // Used: the same URL again is refused, at the client's redirect URI.
  const again = await agent.get(url.pathname).query(query).expect(302);
  expect(errorOf(again.headers.location)).toMatchObject({ error: 'invalid_request_uri' });
});

it('takes a signed request object in the push from a private_key_jwt client, which authenticates with an assertion', async () => {
  const config = await register(
    { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } },
    oidc.PrivateKeyJwt({ key: key.privateKey, kid: 'par-1' }),
  );
  const clientId = config.clientMetadata().client_id;
  const verifier = oidc.randomPKCECodeVerifier();
  const object = await new SignJWT({
    iss: clientId,
    aud: liveApp().issuer,
    client_id: clientId,
    response_type: 'code',
    redirect_uri: CALLBACK,
    scope: 'openid',
    state: 'inside',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  })
    .setProtectedHeader({ alg: 'ES256', kid: 'par-1' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key.privateKey);
  const url = await oidc.buildAuthorizationUrlWithPAR(config, { request: object });
  const { agent } = await signedInAgent(liveApp().app);
  const callback = await approve(agent, Object.fromEntries(url.searchParams));
  expect(callback.searchParams.get('state')).toBe('inside');
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: 'inside' });
  expect(tokens.access_token).toEqual(expect.any(String));
});

it('lets a public client push with PKCE S256, and refuses its push without', async () => {
  const config = await register({ token_endpoint_auth_method: 'none' }, oidc.None());
  const clientId = config.clientMetadata().client_id;
  const { query, verifier } = await pushed(config);
  const { agent } = await signedInAgent(liveApp().app);
  const callback = await approve(agent, query);
  await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: 'pushed-state' });

  const refused = await push({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid' }).expect(400);
  expect(refused.body).toEqual({
    error: 'invalid_request',
    error_description: 'Public clients must send a code_challenge with code_challenge_method=S256',
  });
  expect(refused.headers['cache-control']).toBe('no-store');
});

describe('the push checks the request and answers in JSON', () => {
  let clientId: string;
  let secret: string;
  beforeAll(async () => {
    const metadata = (await register()).clientMetadata();
    clientId = metadata.client_id;
    secret = metadata.client_secret as string;
  });
  const base = () => ({ response_type: 'code', redirect_uri: CALLBACK, scope: 'openid' });

  it.each([
    ['a wrong secret', () => push(base(), [clientId, 'wrong']), 401, { error: 'invalid_client' }],
    ['no client authentication', () => push({ ...base(), client_id: clientId }), 401, { error: 'invalid_client' }],
    [
      'a request_uri',
      () => push({ ...base(), request_uri: 'urn:ietf:params:oauth:request_uri:abc' }, [clientId, secret]),
      400,
      { error: 'invalid_request', error_description: 'request_uri cannot be pushed (RFC 9126 §2.1)' },
    ],
    [
      'an unregistered redirect_uri',
      () => push({ ...base(), redirect_uri: 'https://evil.example.com/cb' }, [clientId, secret]),
      400,
      { error: 'invalid_request', error_description: expect.stringContaining('Invalid redirect address') },
    ],
    ['an unknown scope', () => push({ ...base(), scope: 'openid root' }, [clientId, secret]), 400, { error: 'invalid_scope' }],
    [
      'an unknown response_type',
      () => push({ ...base(), response_type: 'magic' }, [clientId, secret]),
      400,
      { error: 'unsupported_response_type' },
    ],
    [
      'a request object that is no JWT',
      () => push({ ...base(), request: 'not-a-jwt' }, [clientId, secret]),
      400,
      { error: 'invalid_request_object' },
    ],
  ])('refuses %s', async (_case, send, status, body) => {
    const res = await send();
    expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.objectContaining(body) });
  });
});

describe('a pushed request_uri', () => {
  it("is bound to its client: another client's authorization request with it is refused and does not use it up", async () => {
    const config = await register();
    const other = (await register()).clientMetadata().client_id;
    const { query } = await pushed(config);
    const { agent } = await signedInAgent(liveApp().app);
    const stolen = await agent
      .get('/oauth/authorize')
      .query({ ...query, client_id: other })
      .expect(302);
    expect(errorOf(stolen.headers.location)).toMatchObject({ error: 'invalid_request_uri' });
    expect((await approve(agent, query)).searchParams.get('code')).toEqual(expect.any(String));
  });

  it('waits 60 s for the browser, then gives the person time to sign in and consent', async () => {
    const config = await register();
    const late = await pushed(config);
    clock.move(61_000);
    const { agent } = await signedInAgent(liveApp().app);
    const expired = await agent.get('/oauth/authorize').query(late.query).expect(302);
    expect(errorOf(expired.headers.location)).toMatchObject({ error: 'invalid_request_uri' });

    // Brought in time by a browser that is not signed in: the sign-in comes back to the same request_uri.
    const { query } = await pushed(config);
    const person = await createUser();
    const browser = request.agent(liveApp().app);
    const toLogin = await browser.get('/oauth/authorize').query(query).expect(302);
    const returnTo = new URL(toLogin.headers.location, liveApp().issuer).searchParams.get('return_to')!;
    expect(Object.fromEntries(new URL(returnTo, liveApp().issuer).searchParams)).toEqual(query);
    clock.move(5 * 60_000);
    const page = await browser.get(toLogin.headers.location).expect(200);
    const signedIn = await browser
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), email: person.email, password: person.password, return_to: returnTo })
      .expect(303);
    expect(signedIn.headers.location).toBe(returnTo);
    const decided = await approve(browser, query);
    expect(Object.fromEntries(decided.searchParams)).toMatchObject({ code: expect.any(String), state: 'pushed-state' });
    // Ten minutes after it was opened it is gone.
    const reopened = await pushed(config);
    const stranger = request.agent(liveApp().app);
    expect((await stranger.get('/oauth/authorize').query(reopened.query).expect(302)).headers.location).toMatch(/^\/login\?/);
    clock.move(11 * 60_000);
    // A visitor who is not signed in gets the error on a page of this server.
    const stale = await stranger.get('/oauth/authorize').query(reopened.query).expect(400);
    expect(stale.text).toContain('invalid_request_uri');
  });

  it('gives one code when 100 requests bring it at once to two instances', async () => {
    const config = await register();
    const { query } = await pushed(config);
    const person = await createUser();
    const { agent } = await signedInAgent(liveApp().app, person);
    await approve(agent, (await pushed(config)).query); // consent remembered: each answer is immediate
    const second = testApp();
    const cookie = (await agent.get('/home')).request.cookies;
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        request(i % 2 === 0 ? liveApp().app : second)
          .get('/oauth/authorize')
          .query(query)
          .set('Cookie', cookie),
      ),
    );
    const outcomes = answers.map((res) => errorOf(res.headers.location));
    expect(outcomes.filter((outcome) => outcome.code !== undefined)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.error === 'invalid_request_uri')).toHaveLength(99);
  });
});

describe('pushing required', () => {
  it('refuses a plain authorization request from a client that registered require_pushed_authorization_requests', async () => {
    const config = await register({ require_pushed_authorization_requests: true });
    const clientId = config.clientMetadata().client_id;
    expect(config.clientMetadata().require_pushed_authorization_requests).toBe(true);
    const { agent } = await signedInAgent(liveApp().app);
    const plain = await agent
      .get('/oauth/authorize')
      .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid', state: 's' })
      .expect(302);
    expect(errorOf(plain.headers.location)).toMatchObject({
      error: 'invalid_request',
      error_description: 'authorization requests must be pushed first (/oauth/par, RFC 9126)',
      state: 's',
    });
    expect((await approve(agent, (await pushed(config)).query)).searchParams.get('code')).toEqual(expect.any(String));
  });

  it('refuses every plain request with OAUTH_REQUIRE_PAR=on, and says so in discovery', async () => {
    const strict = testApp({ OAUTH_REQUIRE_PAR: 'on' });
    const { body } = await request(strict).get('/.well-known/openid-configuration').expect(200);
    expect(body.require_pushed_authorization_requests).toBe(true);
    const clientId = (await register()).clientMetadata().client_id;
    const { agent } = await signedInAgent(strict);
    const plain = await agent
      .get('/oauth/authorize')
      .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid' })
      .expect(302);
    expect(errorOf(plain.headers.location)).toMatchObject({ error: 'invalid_request' });
  });
});

it('bounds pushes per client (RATE_LIMIT_PAR_PER_CLIENT) and keeps nothing of a refused one', async () => {
  const limited = testApp({ RATE_LIMITS: 'on', RATE_LIMIT_PAR_PER_CLIENT: '2' });
  const { client_id: clientId, client_secret: secret } = (await register()).clientMetadata();
  const send = () =>
    request(limited)
      .post('/oauth/par')
      .auth(clientId, secret as string)
      .type('form')
      .send({ response_type: 'code', redirect_uri: CALLBACK, scope: 'openid' });
  expect((await send()).status).toBe(201);
  expect((await send()).status).toBe(201);
  const refused = await send().expect(429);
  expect(refused.body).toMatchObject({ error: 'too_many_requests' });
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
});
