// Request objects by reference (OIDC Core 6.2): a request_uri the client registered, fetched from a
// real server on loopback; signed (RS256, ES256) or unsigned objects work as by value; an unregistered
// URI, a redirect, an oversize or slow document, too many fetches for one client and (in production)
// a private address are each invalid_request_uri, and none of them issues a code.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import * as oidc from 'openid-client';
import request from 'supertest';
import { insecure, useLiveApp } from '../helpers/oidc';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { approve, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const liveApp = useLiveApp({ RATE_LIMITS: 'on', RATE_LIMIT_REQUEST_URI_PER_CLIENT_AND_ADDRESS: '3', TRUST_PROXY: 'true' });
const CALLBACK = 'http://127.0.0.1:8400/callback';

let keys: Record<'RS256' | 'ES256', { privateKey: CryptoKey; jwk: Record<string, unknown> }>;
let documents: FakeUpstream;
/** What the fake serves at each path. */
const served = new Map<string, (res: import('node:http').ServerResponse) => void>();

beforeAll(async () => {
  const made = await Promise.all(
    (['RS256', 'ES256'] as const).map(async (alg) => {
      const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
      return [alg, { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: `k-${alg}`, alg, use: 'sig' } }] as const;
    }),
  );
  keys = Object.fromEntries(made) as unknown as typeof keys;
  documents = await startFakeUpstream((req, res) => {
    const serve = served.get(req.url.pathname);
    if (serve) serve(res);
    else {
      res.writeHead(404);
      res.end();
    }
  });
});
afterAll(() => documents.close());

let paths = 0;
/** Serves a body at a new path of the fake; its URL with a fragment, as the OpenID Foundation's suite registers one. */
function serve(body: string | ((res: import('node:http').ServerResponse) => void)): string {
  const path = `/ro/${++paths}`;
  served.set(
    path,
    typeof body === 'string'
      ? (res) => {
          res.writeHead(200, { 'Content-Type': 'application/oauth-authz-req+jwt' });
          res.end(body);
        }
      : body,
  );
  return `${documents.url}${path}#frag-${paths}`;
}

async function register(requestUris: string[], metadata: Record<string, unknown> = {}) {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  return oidc.dynamicClientRegistration(
    new URL(liveApp().issuer),
    {
      redirect_uris: [CALLBACK],
      jwks: { keys: [keys.RS256.jwk, keys.ES256.jwk] } as oidc.ClientMetadata['jwks'],
      request_uris: requestUris,
      ...metadata,
    },
    undefined,
    { ...insecure, initialAccessToken: login.body.accessToken },
  );
}

const signed = (claims: Record<string, unknown>, alg: 'RS256' | 'ES256') =>
  new SignJWT(claims)
    .setProtectedHeader({ alg, kid: `k-${alg}` })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(keys[alg].privateKey);

const unsigned = (claims: Record<string, unknown>) => {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none' })}.${encode(claims)}.`;
};

const errorOf = (location: string) => Object.fromEntries(new URL(location).searchParams);

it('says in discovery that request_uri is supported and must be registered', async () => {
  const res = await request(liveApp().app).get('/.well-known/openid-configuration').expect(200);
  expect(res.body).toMatchObject({ request_uri_parameter_supported: true, require_request_uri_registration: true });
});

it.each(['RS256', 'ES256'] as const)('signs a person in from a request object signed %s at a registered request_uri', async (alg) => {
  const uri = serve('');
  const config = await register([uri]);
  const clientId = config.clientMetadata().client_id;
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  const object = await signed(
    {
      iss: clientId,
      aud: liveApp().issuer,
      client_id: clientId,
      response_type: 'code',
      redirect_uri: CALLBACK,
      scope: 'openid',
      state: 'by-reference',
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    },
    alg,
  );
  served.set(new URL(uri).pathname, (res) => {
    res.writeHead(200, { 'Content-Type': 'application/oauth-authz-req+jwt' });
    res.end(object);
  });
  const before = documents.requests.length;
  const { agent } = await signedInAgent(liveApp().app);
  const callback = await approve(agent, { client_id: clientId, response_type: 'code', request_uri: uri });
  // Fetched without the fragment, asking for a request object.
  const fetched = documents.requests.slice(before).map((sent) => sent.rawUrl);
  expect(fetched.length).toBeGreaterThanOrEqual(1);
  expect(fetched.every((path) => path === new URL(uri).pathname)).toBe(true);
  expect(documents.requests.at(-1)!.headers.accept).toContain('application/oauth-authz-req+jwt');
  expect(callback.searchParams.get('state')).toBe('by-reference');
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    expectedState: 'by-reference',
    idTokenExpected: true,
  });
  expect(tokens.claims()!.nonce).toBe(nonce);
});

describe('unsigned request objects', () => {
  const object = (clientId: string) =>
    unsigned({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid', state: 'plain' });

  it('takes one by reference from a client that registered none, and from one that registered no algorithm', async () => {
    for (const metadata of [{ request_object_signing_alg: 'none' }, {}]) {
      const uri = serve('');
      const clientId = (await register([uri], metadata)).clientMetadata().client_id;
      served.set(new URL(uri).pathname, (res) => res.end(object(clientId)));
      const { agent } = await signedInAgent(liveApp().app);
      const callback = await approve(agent, { client_id: clientId, response_type: 'code', request_uri: uri });
      expect(callback.searchParams.get('state')).toBe('plain');
      expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    }
  });

  it('takes one by value from a client that registered no algorithm, as plain parameters', async () => {
    const clientId = (await register([])).clientMetadata().client_id;
    const { agent } = await signedInAgent(liveApp().app);
    const callback = await approve(agent, { client_id: clientId, response_type: 'code', request: object(clientId) });
    expect(callback.searchParams.get('state')).toBe('plain');
  });

  it('refuses one from a client that registered a signing algorithm', async () => {
    const uri = serve('');
    const clientId = (await register([uri], { request_object_signing_alg: 'ES256' })).clientMetadata().client_id;
    served.set(new URL(uri).pathname, (res) => res.end(object(clientId)));
    const { agent } = await signedInAgent(liveApp().app);
    const res = await agent
      .get('/oauth/authorize')
      .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, state: 'q', request_uri: uri })
      .expect(302);
    expect(errorOf(res.headers.location)).toMatchObject({
      error: 'invalid_request_object',
      error_description: "this client's request objects must be signed with ES256",
      state: 'q',
    });
  });
});

describe('refusals, each invalid_request_uri at the redirect URI', () => {
  let agent: Awaited<ReturnType<typeof signedInAgent>>['agent'];
  beforeAll(async () => {
    ({ agent } = await signedInAgent(liveApp().app));
  });

  /** A client registered with these request_uris, sending `uri`: the error it gets back. */
  async function refusal(registered: string[], uri: string) {
    const clientId = (await register(registered)).clientMetadata().client_id;
    const res = await agent
      .get('/oauth/authorize')
      .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, state: 's', request_uri: uri })
      .expect(302);
    expect(res.headers.location.startsWith(CALLBACK)).toBe(true);
    return errorOf(res.headers.location);
  }

  it('refuses a URI the client did not register, without fetching it', async () => {
    const registered = serve('');
    const other = serve('');
    const before = documents.requests.length;
    expect(await refusal([registered], other)).toMatchObject({
      error: 'invalid_request_uri',
      error_description: 'request_uri is not one of the request_uris this client registered',
      state: 's',
    });
    expect(documents.requests.length).toBe(before);
  });

  it('does not follow a redirect', async () => {
    const target = serve(unsigned({ scope: 'openid' }));
    const uri = serve((res) => {
      res.writeHead(302, { Location: target });
      res.end();
    });
    const before = documents.requests.length;
    expect(await refusal([uri], uri)).toMatchObject({
      error: 'invalid_request_uri',
      error_description: expect.stringContaining('status 302'),
    });
    expect(documents.requests.slice(before).map((sent) => sent.url.pathname)).toEqual([new URL(uri).pathname]);
  });

  it('refuses a document over 8 kB, and one that is no JWT', async () => {
    const big = serve(unsigned({ scope: 'openid', padding: 'x'.repeat(9000) }));
    expect(await refusal([big], big)).toMatchObject({ error: 'invalid_request_uri' });
    const html = serve('<html>hello</html>');
    expect(await refusal([html], html)).toMatchObject({
      error: 'invalid_request_uri',
      error_description: 'the document at request_uri is not a JWT',
    });
  });

  it('gives up on a server that does not answer within 3 s', async () => {
    const silent = serve(() => undefined);
    const started = Date.now();
    expect(await refusal([silent], silent)).toMatchObject({
      error: 'invalid_request_uri',
      error_description: expect.stringContaining('could not be fetched'),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("fetches at most RATE_LIMIT_REQUEST_URI_PER_CLIENT_AND_ADDRESS times per 15 minutes for one client's requests from one address, and another address is not locked out", async () => {
    const uri = serve('');
    const clientId = (await register([uri])).clientMetadata().client_id;
    served.set(new URL(uri).pathname, (res) =>
      res.end(unsigned({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid' })),
    );
    const before = documents.requests.length;
    const send = (address = '203.0.113.7') =>
      request(liveApp().app)
        .get('/oauth/authorize')
        .set('X-Forwarded-For', address)
        .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, request_uri: uri });
    // Anonymous visitors of a client with an owner get errors on a page of this server; a fetched
    // object sends them on to /login.
    const tooMany = (res: request.Response) => res.status === 400 && res.text.includes('too many request objects fetched for this client');
    const burst = await Promise.all(Array.from({ length: 10 }, () => send()));
    expect(burst.every((res) => tooMany(res) || res.status === 302)).toBe(true);
    expect(documents.requests.length - before).toBeLessThanOrEqual(3);
    // One at a time, the rest of the budget: then refusals, with nothing more fetched.
    for (let i = documents.requests.length - before; i < 3; i++) expect((await send()).status).toBe(302);
    expect(tooMany(await send())).toBe(true);
    expect(documents.requests.length - before).toBe(3);
    // The client's own requests, from elsewhere, still fetch (issue 48, finding 2: ids are public).
    expect((await send('198.51.100.20')).status).toBe(302);
    expect(documents.requests.length - before).toBe(4);
  });

  it('refuses http and private addresses in production, at registration and when fetching', async () => {
    const uri = serve(unsigned({ scope: 'openid' }));
    const clientId = (await register([uri])).clientMetadata().client_id;
    const production = testApp({ NODE_ENV: 'production' });
    const before = documents.requests.length;
    const res = await request(production)
      .get('/oauth/authorize')
      .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, request_uri: uri })
      .expect(400);
    expect(res.text).toContain('invalid_request_uri');
    expect(documents.requests.length).toBe(before);

    const person = await createUser();
    const login = await request(production).post('/auth').send({ email: person.email, password: person.password }).expect(201);
    const registration = await request(production)
      .post('/oauth/register')
      .set('Authorization', `Bearer ${login.body.accessToken}`)
      .send({ redirect_uris: ['https://rp.example.com/cb'], request_uris: ['https://10.0.0.1/ro.jwt'] })
      .expect(400);
    expect(registration.body).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('refuses request and request_uri together, and a request_uri over 512 characters', async () => {
    const uri = serve('');
    const clientId = (await register([uri])).clientMetadata().client_id;
    const both = await agent
      .get('/oauth/authorize')
      .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, request_uri: uri, request: unsigned({}) })
      .expect(302);
    expect(errorOf(both.headers.location)).toMatchObject({ error: 'invalid_request' });
    const long = await agent
      .get('/oauth/authorize')
      .query({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, request_uri: `${uri}${'x'.repeat(512)}` });
    expect(long.status).toBe(400);
    expect(long.text).toContain('request_uri is longer than 512 characters');
  });
});

it('refuses to register a request_uri over 512 characters', async () => {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  const res = await request(liveApp().app)
    .post('/oauth/register')
    .set('Authorization', `Bearer ${login.body.accessToken}`)
    .send({ redirect_uris: [CALLBACK], request_uris: [`${documents.url}/${'x'.repeat(520)}`] })
    .expect(400);
  expect(res.body).toMatchObject({ error: 'invalid_client_metadata' });
});
