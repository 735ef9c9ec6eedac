// The FAPI 2.0 Security Profile for a client registered with `"fapi_profile": "fapi2"`, checked the
// way the OpenID Foundation's plan (private_key_jwt, DPoP, unsigned, plain responses) checks it: the
// happy path with openid-client (PAR, PKCE S256, private_key_jwt, DPoP, an ES256 ID token, the
// resource with a proof), then each rule's refusal through HTTP.
import { createHash } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oidc from 'openid-client';
import request from 'supertest';
import { sha256 } from '../../src/common/crypto';
import { CodeModel } from '../../src/oauth/tokens/tokens.model';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { insecure, registrationAnswer, useLiveApp } from '../helpers/oidc';
import { approve, operatorToken, signedInAgent } from '../helpers/oauth';
import { dpopProof, newDpopKey, type DpopKey } from '../helpers/dpop';

useTestDatabase();
const liveApp = useLiveApp();
const CALLBACK = 'http://127.0.0.1:8400/callback';

let es: { privateKey: CryptoKey; jwk: JWK };
let rs: { privateKey: CryptoKey; jwk: JWK };
beforeAll(async () => {
  const made = async (alg: string, kid: string) => {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
  };
  es = await made('ES256', 'fapi-es');
  rs = await made('RS256', 'fapi-rs');
});

const registerWith = (metadata: Record<string, unknown>) =>
  registrationAnswer(liveApp().app, {
    redirect_uris: [CALLBACK],
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [es.jwk, rs.jwk] },
    grant_types: ['authorization_code', 'refresh_token'],
    fapi_profile: 'fapi2',
    ...metadata,
  });

async function fapiClient(metadata: Record<string, unknown> = {}) {
  const registered = await registerWith(metadata);
  expect(registered.status).toBe(201);
  const config = new oidc.Configuration(
    await oidc
      .discovery(new URL(liveApp().issuer), registered.body.client_id, undefined, undefined, insecure)
      .then((found) => found.serverMetadata()),
    registered.body.client_id,
    {},
    oidc.PrivateKeyJwt({ key: es.privateKey, kid: 'fapi-es' }),
  );
  oidc.allowInsecureRequests(config);
  return { config, clientId: registered.body.client_id as string };
}

/** A client assertion signed by hand: what openid-client never sends. */
const assertion = (clientId: string, claims: Record<string, unknown>, key = es, alg = 'ES256') =>
  new SignJWT({ iss: clientId, sub: clientId, aud: liveApp().issuer, jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg, kid: key.jwk.kid! })
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(key.privateKey);

const pkce = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** A push authenticated by this client assertion: a good request unless `fields` changes it. */
const pushWith = (clientAssertion: string, fields: Record<string, string | undefined> = {}) =>
  request(liveApp().app)
    .post('/oauth/par')
    .type('form')
    .send(
      Object.fromEntries(
        Object.entries({
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: clientAssertion,
          response_type: 'code',
          redirect_uri: CALLBACK,
          scope: 'openid',
          code_challenge: pkce('v'.repeat(43)),
          code_challenge_method: 'S256',
          ...fields,
        }).filter(([, value]) => value !== undefined),
      ),
    );

describe('registration', () => {
  it('gives a FAPI client PAR, ES256 ID tokens and its profile', async () => {
    const res = await registerWith({});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      fapi_profile: 'fapi2',
      require_pushed_authorization_requests: true,
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'private_key_jwt',
    });
  });

  it.each([
    ['a client secret', { token_endpoint_auth_method: 'client_secret_basic' }, 'A FAPI 2.0 client authenticates with private_key_jwt'],
    [
      'the implicit grant',
      { grant_types: ['authorization_code', 'implicit'] },
      'A FAPI 2.0 client may use only authorization_code, refresh_token, client_credentials',
    ],
    ['RS256 assertions', { token_endpoint_auth_signing_alg: 'RS256' }, 'A FAPI 2.0 client signs with PS256, ES256, EdDSA'],
    ['RS256 ID tokens', { id_token_signed_response_alg: 'RS256' }, 'A FAPI 2.0 client gets what this server signs for it with ES256'],
    ['another profile', { fapi_profile: 'fapi1' }, 'fapi_profile must be fapi2 or fapi2-message-signing'],
  ])('refuses %s', async (_case, metadata, description) => {
    const res = await registerWith(metadata);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_client_metadata', error_description: description });
  });
});

it('runs the FAPI 2.0 flow with openid-client: PAR, PKCE S256, private_key_jwt, DPoP, an ES256 ID token, the resource', async () => {
  const { config } = await fapiClient();
  const DPoP = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const url = await oidc.buildAuthorizationUrlWithPAR(
    config,
    { redirect_uri: CALLBACK, scope: 'openid read', nonce, code_challenge: pkce(verifier), code_challenge_method: 'S256' },
    { DPoP },
  );
  const person = await createUser();
  const { agent } = await signedInAgent(liveApp().app, person);
  const callback = await approve(agent, Object.fromEntries(url.searchParams));
  expect(callback.searchParams.get('iss')).toBe(liveApp().issuer);
  // The code lives 60 s.
  const stored = await CodeModel.findById(sha256(callback.searchParams.get('code')!)).lean();
  expect(stored!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(60_000);
  const tokens = await oidc.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: verifier, expectedNonce: nonce, idTokenExpected: true },
    undefined,
    { DPoP },
  );
  expect(tokens.token_type).toBe('dpop');
  expect(JSON.parse(Buffer.from(tokens.id_token!.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'ES256' });
  const api = await oidc.fetchProtectedResource(
    config,
    tokens.access_token,
    new URL(`${liveApp().issuer}/api/user`),
    'GET',
    null,
    undefined,
    { DPoP },
  );
  expect(api.status).toBe(200);
  const renewed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
  expect(renewed.token_type).toBe('dpop');
  // FAPI 2.0 SP 5.3.2.1: not rotated. The client keeps its refresh token, which works again (the
  // OpenID Foundation's plan uses the previous one 30 s later), and each refresh gives a new access token.
  expect(renewed.refresh_token).toBeUndefined();
  const again = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
  expect(again.access_token).not.toBe(renewed.access_token);
  const atOnce = await Promise.all(
    Array.from({ length: 10 }, () => oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP })),
  );
  expect(new Set(atOnce.map((answer) => answer.access_token)).size).toBe(10);
});

describe('refusals', () => {
  it('refuses an authorization request that was not pushed', async () => {
    const { clientId } = await fapiClient();
    const { agent } = await signedInAgent(liveApp().app);
    const res = await agent
      .get('/oauth/authorize')
      .query({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: CALLBACK,
        scope: 'openid',
        code_challenge: pkce('v'.repeat(43)),
        code_challenge_method: 'S256',
      })
      .expect(302);
    expect(new URL(res.headers.location).searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a push without PKCE, with plain PKCE, or without redirect_uri', async () => {
    const { clientId } = await fapiClient();
    const push = async (fields: Record<string, string | undefined>) => pushWith(await assertion(clientId, {}), fields);
    expect((await push({ code_challenge: undefined, code_challenge_method: undefined })).body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('S256'),
    });
    expect((await push({ code_challenge: 'v'.repeat(43), code_challenge_method: 'plain' })).body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('S256'),
    });
    expect((await push({ redirect_uri: undefined })).body).toEqual({
      error: 'invalid_request',
      error_description: 'FAPI 2.0 clients must send redirect_uri',
    });
    expect((await push({})).status).toBe(201);
  });

  it.each([
    ['naming the token endpoint', (issuer: string) => ({ aud: `${issuer}/oauth/token` })],
    ['naming the PAR endpoint', (issuer: string) => ({ aud: `${issuer}/oauth/par` })],
    ['naming the issuer in an array', (issuer: string) => ({ aud: [issuer] })],
    ['made a minute ahead', () => ({ iat: Math.floor(Date.now() / 1000) + 90, nbf: Math.floor(Date.now() / 1000) + 90 })],
  ])('refuses a client assertion %s', async (_case, claims) => {
    const { clientId } = await fapiClient();
    const res = await pushWith(await assertion(clientId, claims(liveApp().issuer))).expect(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('refuses an RS256 client assertion', async () => {
    const { clientId } = await fapiClient();
    const res = await pushWith(await assertion(clientId, {}, rs, 'RS256')).expect(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('refuses a token request without a DPoP proof', async () => {
    const { config } = await fapiClient();
    const verifier = oidc.randomPKCECodeVerifier();
    const url = await oidc.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: CALLBACK,
      scope: 'openid',
      code_challenge: pkce(verifier),
      code_challenge_method: 'S256',
    });
    const { agent } = await signedInAgent(liveApp().app);
    const callback = await approve(agent, Object.fromEntries(url.searchParams));
    await expect(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })).rejects.toMatchObject({
      error: 'invalid_dpop_proof',
      error_description: 'FAPI 2.0 clients must send a DPoP proof',
    });
  });

  /** A client_credentials request of a FAPI client, with a proof by this key and algorithm. */
  const clientCredentials = async (clientId: string, key: DpopKey, fields: Record<string, string> = {}) =>
    request(liveApp().app)
      .post('/oauth/token')
      .set('DPoP', await dpopProof(key, 'POST', `${liveApp().issuer}/oauth/token`))
      .type('form')
      .send({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await assertion(clientId, {}),
        ...fields,
      });

  const withClientCredentials = { grant_types: ['authorization_code', 'refresh_token', 'client_credentials'] };

  it('refuses RS256 DPoP proofs at the token endpoint, PAR and this server’s APIs (FAPI 2.0 §5.4.1)', async () => {
    const { clientId } = await fapiClient(withClientCredentials);
    // One RSA key, signing PS256 (allowed) or RS256 (refused): the same jwk, the same thumbprint.
    const pss = await newDpopKey('PS256');
    const rsa: DpopKey = {
      ...pss,
      alg: 'RS256',
      pair: { ...pss.pair, privateKey: await importPKCS8(await exportPKCS8(pss.pair.privateKey), 'RS256') },
    };
    const refused = await clientCredentials(clientId, rsa);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'invalid_dpop_proof',
      error_description: 'the DPoP proof must be signed with ES256, PS256, EdDSA',
    });
    const pushed = await pushWith(await assertion(clientId, {})).set('DPoP', await dpopProof(rsa, 'POST', `${liveApp().issuer}/oauth/par`));
    expect(pushed.status).toBe(400);
    expect(pushed.body.error).toBe('invalid_dpop_proof');
    // Signing PS256 it gets a token; at the catalogue its RS256 proof is refused, its PS256 one taken.
    const token = (await clientCredentials(clientId, pss, { scope: 'read' })).body.access_token as string;
    const products = async (key: DpopKey) =>
      request(liveApp().app)
        .get('/api/v1/products')
        .set('Authorization', `DPoP ${token}`)
        .set('DPoP', await dpopProof(key, 'GET', `${liveApp().issuer}/api/v1/products`, token));
    const atApi = await products(rsa);
    expect(atApi.status).toBe(401);
    expect(atApi.headers['www-authenticate']).toContain('error="invalid_dpop_proof"');
    expect((await products(pss)).status).toBe(200);
  });

  it('gets an ES256 access token from a resource registered RS256 (FAPI 2.0 §5.4.1)', async () => {
    const api = `https://fapi-rs256-${Date.now()}.example.com/api`;
    await request(liveApp().app)
      .post('/admin/api/resources')
      .set('Authorization', `Bearer ${await operatorToken(liveApp().app)}`)
      .send({ resource: api, scopes: ['things:read'], signing_alg: 'RS256' })
      .expect(201);
    const { clientId } = await fapiClient(withClientCredentials);
    const res = await clientCredentials(clientId, await newDpopKey(), { resource: api, scope: 'things:read' });
    expect(res.status).toBe(200);
    expect(JSON.parse(Buffer.from((res.body.access_token as string).split('.')[0], 'base64url').toString())).toMatchObject({
      alg: 'ES256',
      typ: 'at+jwt',
    });
  });

  it('answers 405 to a PAR request by another method', async () => {
    const res = await request(liveApp().app).put('/oauth/par').type('form').send({}).expect(405);
    expect(res.headers.allow).toBe('POST');
  });
});
