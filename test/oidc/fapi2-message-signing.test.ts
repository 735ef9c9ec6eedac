// FAPI 2.0 Message Signing (final) for a client registered with `"fapi_profile": "fapi2-message-signing"`,
// and the request-object rules the OpenID Foundation's plans found wanting (issue 49), each through HTTP
// as the plan sends it: a pushed request is a signed request object (RFC 9101 §10.5) read before the
// redirect URI (RFC 9101 §6.3: a client with two registered), carrying nbf no older than 60 minutes and
// an exp at most 60 minutes after it (§5.3.1); the answer comes signed (JARM, §5.4); a dpop_jkt inside
// the object is held to the push's proof (RFC 9449 §10.1), and a request_uri inside it is refused
// (RFC 9126 §2.1).
import { createHash, randomUUID } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import request from 'supertest';
import { useTestDatabase } from '../helpers/db';
import { dpopProof, newDpopKey } from '../helpers/dpop';
import { registrationAnswer, useLiveApp } from '../helpers/oidc';
import { signedInAgent, unescapeHtml } from '../helpers/oauth';

useTestDatabase();
const liveApp = useLiveApp();
const CALLBACKS = ['https://ms-rp.example.com/cb-one', 'https://ms-rp.example.com/cb-two'];

let key: { privateKey: CryptoKey; jwk: JWK };
beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  key = { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: 'ms-1', alg: 'ES256', use: 'sig' } };
});

const now = () => Math.floor(Date.now() / 1000);
const verifier = 'v'.repeat(43);
const challenge = createHash('sha256').update(verifier).digest('base64url');

async function messageSigningClient(profile = 'fapi2-message-signing') {
  const res = await registrationAnswer(liveApp().app, {
    redirect_uris: CALLBACKS,
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [key.jwk] },
    grant_types: ['authorization_code', 'refresh_token'],
    fapi_profile: profile,
  });
  expect(res.status).toBe(201);
  return res.body as { client_id: string; require_signed_request_object?: boolean; authorization_signed_response_alg?: string };
}

const assertion = (clientId: string) =>
  new SignJWT({ iss: clientId, sub: clientId, aud: liveApp().issuer, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', kid: 'ms-1' })
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(key.privateKey);

/** A request object as the plan signs it: the request's parameters, and what `claims` changes. */
const requestObject = (clientId: string, claims: Record<string, unknown> = {}) => {
  const body: Record<string, unknown> = {
    iss: clientId,
    aud: liveApp().issuer,
    client_id: clientId,
    response_type: 'code',
    redirect_uri: CALLBACKS[1],
    scope: 'openid',
    state: 'ms-state',
    nonce: 'ms-nonce',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    nbf: now(),
    exp: now() + 300,
    jti: randomUUID(),
    ...claims,
  };
  for (const [name, value] of Object.entries(body)) if (value === undefined) delete body[name];
  return new SignJWT(body).setProtectedHeader({ alg: 'ES256', kid: 'ms-1', typ: 'oauth-authz-req+jwt' }).sign(key.privateKey);
};

/** A push authenticated by a client assertion, with these form fields (and a DPoP proof when given). */
async function push(clientId: string, fields: Record<string, string>, dpop?: string) {
  let req = request(liveApp().app).post('/oauth/par').type('form');
  if (dpop) req = req.set('DPoP', dpop);
  return req.send({
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: await assertion(clientId),
    ...fields,
  });
}

describe('registration', () => {
  it('offers the profile: signed request objects required, JARM signed ES256', async () => {
    const client = await messageSigningClient();
    expect(client).toMatchObject({
      fapi_profile: 'fapi2-message-signing',
      require_signed_request_object: true,
      require_pushed_authorization_requests: true,
      authorization_signed_response_alg: 'ES256',
    });
  });
});

describe('a pushed signed request object', () => {
  it('names one of two registered redirect URIs, and the answer comes signed to it (RFC 9101 §6.3, JARM)', async () => {
    const { client_id: clientId } = await messageSigningClient();
    const pushed = await push(clientId, { request: await requestObject(clientId) });
    expect(pushed.status).toBe(201);
    const { agent } = await signedInAgent(liveApp().app);
    const consent = await agent.get('/oauth/authorize').query({ client_id: clientId, request_uri: pushed.body.request_uri }).expect(200);
    const fields = Object.fromEntries(
      [...consent.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], unescapeHtml(m[2])]),
    );
    const answer = await agent
      .post('/oauth/authorize')
      .type('form')
      .send({ ...fields, decision: 'approve' })
      .expect(302);
    const location = new URL(answer.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACKS[1]);
    const response = location.searchParams.get('response')!;
    expect(JSON.parse(Buffer.from(response.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'ES256' });
    expect(decodeJwt(response)).toMatchObject({ iss: liveApp().issuer, aud: clientId, state: 'ms-state', code: expect.any(String) });
  });

  it('takes an exp 60 minutes after nbf, past the 10-minute cap other clients get (§5.3.1)', async () => {
    const { client_id: clientId } = await messageSigningClient();
    const res = await push(clientId, { request: await requestObject(clientId, { nbf: now() - 60, exp: now() - 60 + 3600 }) });
    expect(res.status).toBe(201);
  });

  it.each([
    ['without nbf (§5.3.1)', { nbf: undefined }, 'a FAPI 2.0 Message Signing request object must carry nbf'],
    ['without exp (§5.3.1)', { exp: undefined }, 'a FAPI 2.0 Message Signing request object must carry exp'],
    [
      'with an nbf over 60 minutes old (§5.3.1)',
      { nbf: now() - 3700, exp: now() + 60 },
      "the request object's nbf is more than 60 minutes ago",
    ],
    [
      'with an exp over 60 minutes after nbf (§5.3.1)',
      { nbf: now(), exp: now() + 3700 },
      "the request object's exp is more than 60 minutes after its nbf",
    ],
    [
      'carrying a request_uri (RFC 9126 §2.1, RFC 9101 §4)',
      { request_uri: 'https://ms-rp.example.com/ro' },
      'a request object may not carry request or request_uri (RFC 9101 §4)',
    ],
  ])('is refused %s', async (_case, claims, description) => {
    const { client_id: clientId } = await messageSigningClient();
    const res = await push(clientId, { request: await requestObject(clientId, claims) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request_object', error_description: expect.stringContaining(description) });
  });

  it('holds a dpop_jkt inside it to the push’s proof, as one in the form (RFC 9449 §10.1)', async () => {
    const { client_id: clientId } = await messageSigningClient();
    const proofKey = await newDpopKey();
    const other = await newDpopKey();
    const proof = () => dpopProof(proofKey, 'POST', `${liveApp().issuer}/oauth/par`);
    const mismatched = await push(clientId, { request: await requestObject(clientId, { dpop_jkt: other.jkt }) }, await proof());
    expect(mismatched.status).toBe(400);
    expect(mismatched.body.error).toBe('invalid_dpop_proof');
    const matching = await push(clientId, { request: await requestObject(clientId, { dpop_jkt: proofKey.jkt }) }, await proof());
    expect(matching.status).toBe(201);
  });
});

describe('a client that must sign its requests (RFC 9101 §10.5)', () => {
  it('has an unsigned push refused: plain parameters, or an object signed with none', async () => {
    const { client_id: clientId } = await messageSigningClient();
    const plain = await push(clientId, {
      response_type: 'code',
      redirect_uri: CALLBACKS[0],
      scope: 'openid',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      response_mode: 'jwt',
    });
    expect(plain.status).toBe(400);
    expect(plain.body).toEqual({
      error: 'invalid_request',
      error_description: 'this client must send its authorization requests as signed request objects (require_signed_request_object)',
    });
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACKS[0], scope: 'openid' }),
    ).toString('base64url')}.`;
    const none = await push(clientId, { request: unsigned });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe('invalid_request_object');
  });

  it('is any client that registered require_signed_request_object, at the authorization endpoint too', async () => {
    const res = await registrationAnswer(liveApp().app, {
      redirect_uris: [CALLBACKS[0]],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.jwk] },
      require_signed_request_object: true,
    });
    expect(res.status).toBe(201);
    expect(res.body.require_signed_request_object).toBe(true);
    const { agent } = await signedInAgent(liveApp().app);
    const plain = await agent
      .get('/oauth/authorize')
      .query({ client_id: res.body.client_id, response_type: 'code', redirect_uri: CALLBACKS[0], scope: 'openid' })
      .expect(302);
    expect(new URL(plain.headers.location).searchParams.get('error')).toBe('invalid_request');
    const signed = await requestObject(res.body.client_id as string, {
      redirect_uri: CALLBACKS[0],
      response_type: 'code',
      code_challenge: undefined,
      code_challenge_method: undefined,
    });
    await agent.get('/oauth/authorize').query({ client_id: res.body.client_id, response_type: 'code', request: signed }).expect(200);
  });
});
