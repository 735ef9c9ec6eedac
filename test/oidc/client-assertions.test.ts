// Client authentication by JWT (RFC 7523, OIDC Core 9): private_key_jwt with keys registered as jwks or
// served at a jwks_uri (a real server on loopback), and client_secret_jwt, driven by openid-client's
// PrivateKeyJwt() and ClientSecretJwt(); then every way an assertion can be wrong, replays at once.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oidc from 'openid-client';
import request from 'supertest';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import { startFakeUpstream, json, type FakeUpstream } from '../helpers/fake-upstream';
import { insecure, useLiveApp } from '../helpers/oidc';
import { useTestDatabase } from '../helpers/db';
import { createStores } from '../../src/stores';
import { JWKS_LIMITS } from '../../src/oauth/clients/client-keys.service';
import { movableClock } from '../helpers/clock';
import { createUser } from '../helpers/factories';
import { basicAuth } from '../helpers/oauth';

useTestDatabase();
// The app's stores, looked into; their clock says when a fetched key set is old (moved, never waited for).
const keysClock = movableClock();
const stores = createStores(keysClock);
const liveApp = useLiveApp({}, { stores });
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

async function keyPair(kid: string, alg = 'ES256') {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } as JWK };
}

async function initialAccessToken() {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  return login.body.accessToken as string;
}

async function register(metadata: Record<string, unknown>) {
  const res = await request(liveApp().app)
    .post('/oauth/register')
    .set('Authorization', `Bearer ${await initialAccessToken()}`)
    .send({ grant_types: ['client_credentials'], ...metadata });
  return res;
}

async function registered(metadata: Record<string, unknown>) {
  const res = await register(metadata);
  expect(res.status).toBe(201);
  return res.body as { client_id: string; client_secret?: string };
}

/** An assertion as a client would build it, with any claim overridden (undefined removes it). */
async function assertion(
  key: { privateKey: CryptoKey; kid: string; alg: string },
  clientId: string,
  overrides: Record<string, unknown> = {},
) {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: clientId,
    sub: clientId,
    aud: liveApp().issuer,
    jti: crypto.randomUUID(),
    iat: now,
    exp: now + 60,
    ...overrides,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}

const clientCredentials = (clientId: string, clientAssertion: string, extra: Record<string, string> = {}) =>
  request(liveApp().app)
    .post('/oauth/token')
    .type('form')
    .send({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: clientAssertion,
      ...extra,
    });

describe('private_key_jwt with registered jwks', () => {
  it('authenticates openid-client at the token, introspection and revocation endpoints', async () => {
    const key = await keyPair('k1');
    const { client_id: clientId, client_secret: secret } = await registered({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.jwk] },
    });
    expect(secret).toBeUndefined();
    const config = await oidc.discovery(
      new URL(liveApp().issuer),
      clientId,
      undefined,
      oidc.PrivateKeyJwt({ key: key.privateKey, kid: 'k1' }),
      insecure,
    );
    const token = await oidc.clientCredentialsGrant(config, { scope: 'read' });
    expect(await oidc.tokenIntrospection(config, token.access_token)).toMatchObject({ active: true, client_id: clientId });
    await oidc.tokenRevocation(config, token.access_token);
    expect(await oidc.tokenIntrospection(config, token.access_token)).toEqual({ active: false });
  });

  it('accepts the token endpoint URL as the audience, as the OpenID Foundation OIDC plans send it', async () => {
    const key = await keyPair('k1');
    const { client_id: clientId } = await registered({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } });
    const res = await clientCredentials(clientId, await assertion(key, clientId, { aud: `${liveApp().issuer}/oauth/token` })).expect(200);
    expect(res.body.access_token).toEqual(expect.any(String));
  });

  it('accepts at revocation an assertion naming the revocation endpoint (as authlib sends it), and refuses one naming another endpoint', async () => {
    const key = await keyPair('k1');
    const { client_id: clientId } = await registered({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } });
    const revoke = (aud: string) =>
      assertion(key, clientId, { aud }).then((signed) =>
        request(liveApp().app)
          .post('/oauth/revoke')
          .type('form')
          .send({ token: 'unknown', client_id: clientId, client_assertion_type: ASSERTION_TYPE, client_assertion: signed }),
      );
    expect((await revoke(`${liveApp().issuer}/oauth/introspect`)).status).toBe(401);
    expect((await revoke(`${liveApp().issuer}/oauth/revoke`)).status).toBe(200);
    expect((await revoke(liveApp().issuer)).status).toBe(200);
  });

  it('accepts an assertion once: the same one sent 30 times at once gets exactly one token', async () => {
    const key = await keyPair('k1');
    const { client_id: clientId } = await registered({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } });
    const signed = await assertion(key, clientId);
    const answers = await Promise.all(Array.from({ length: 30 }, () => clientCredentials(clientId, signed)));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    expect(answers.filter((res) => res.status === 401).every((res) => res.body.error === 'invalid_client')).toBe(true);
    expect(answers.filter((res) => res.status === 401)).toHaveLength(29);
  });

  it.each([
    ['expired', { exp: Math.floor(Date.now() / 1000) - 120 }],
    ['living longer than ten minutes', { exp: Math.floor(Date.now() / 1000) + 3600 }],
    ['without exp', { exp: undefined }],
    ['without jti', { jti: undefined }],
    ['for another audience', { aud: 'https://other.example.com' }],
    // The audience-injection attack: one assertion meant for two servers, or naming an endpoint of
    // this server other than the one called or the token endpoint, is refused (docs/decisions.md). ISSUER stands for
    // the live app's issuer, known once it runs.
    ['naming the issuer in an array with another server', { aud: ['ISSUER', 'https://other.example.com'] }],
    ['naming the issuer in an array of one', { aud: ['ISSUER'] }],
    ['naming the revocation endpoint', { aud: 'ISSUER/oauth/revoke' }],
    ['naming another subject', { sub: 'someone-else' }],
  ])('refuses an assertion %s as invalid_client, issuing nothing', async (_case, overrides) => {
    const key = await keyPair('k1');
    const { client_id: clientId } = await registered({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } });
    const issuerIn = (value: unknown): unknown =>
      typeof value === 'string' ? value.replace('ISSUER', liveApp().issuer) : Array.isArray(value) ? value.map(issuerIn) : value;
    const withIssuer = Object.fromEntries(Object.entries(overrides).map(([name, value]) => [name, issuerIn(value)]));
    const res = await clientCredentials(clientId, await assertion(key, clientId, withIssuer)).expect(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('refuses a key it never registered, alg none, an HMAC, a secret, and an assertion for a secret client', async () => {
    const key = await keyPair('k1');
    const stranger = await keyPair('k1');
    const { client_id: clientId } = await registered({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } });
    await clientCredentials(clientId, await assertion(stranger, clientId)).expect(401);
    const payload = Buffer.from(
      JSON.stringify({ iss: clientId, sub: clientId, aud: liveApp().issuer, jti: 'x', exp: Math.floor(Date.now() / 1000) + 60 }),
    ).toString('base64url');
    await clientCredentials(clientId, `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`).expect(401);
    const hmac = await new SignJWT({ iss: clientId, sub: clientId, aud: liveApp().issuer, jti: 'y' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode('a-guessed-secret-of-enough-length'));
    await clientCredentials(clientId, hmac).expect(401);
    await request(liveApp().app)
      .post('/oauth/token')
      .set('Authorization', basicAuth(clientId, 'anything'))
      .type('form')
      .send({ grant_type: 'client_credentials' })
      .expect(401);

    const secretClient = await registered({});
    await clientCredentials(secretClient.client_id, await assertion(key, secretClient.client_id)).expect(401);
  });

  it('answers a malformed client authentication with invalid_request', async () => {
    const key = await keyPair('k1');
    const { client_id: clientId } = await registered({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } });
    const signed = await assertion(key, clientId);
    const wrongType = await clientCredentials(clientId, signed, { client_assertion_type: 'urn:example:other' }).expect(400);
    expect(wrongType.body.error).toBe('invalid_request');
    const twoMethods = await request(liveApp().app)
      .post('/oauth/token')
      .set('Authorization', basicAuth(clientId, 'x'))
      .type('form')
      .send({ grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: signed })
      .expect(400);
    expect(twoMethods.body.error_description).toBe('Use one client authentication method, not two');
    const otherClient = await clientCredentials('another-client', signed).expect(400);
    expect(otherClient.body.error_description).toBe('client_id does not name the client of the client assertion');
    // None of these used the assertion up.
    await clientCredentials(clientId, signed).expect(200);
  });
});

describe('fat key sets (issue 36, finding 1)', () => {
  it('refuses a registered set over 8 kB, and keeps only each key’s own members of a smaller one', async () => {
    const key = await keyPair('padded');
    const padded = { ...key.jwk, x5u: 'https://rp.example.com/cert', extra: Array.from({ length: 4_000 }, () => ({})) };
    const refused = await register({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [padded] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error_description).toBe('jwks must be at most 8 kB: register a jwks_uri for larger sets');

    const { client_id: clientId } = await registered({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ ...key.jwk, x5u: 'https://rp.example.com/cert', extra: [{}, {}] }] },
    });
    const stored = await ClientModel.findById(clientId).lean();
    expect(Object.keys(stored!.metadata!.jwks!.keys[0]).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    await clientCredentials(clientId, await assertion(key, clientId)).expect(200);
  });

  it('keeps only the own members of a fetched set padded to its 64 kB limit', async () => {
    const key = await keyPair('fetched-padded');
    const keysServer = await startFakeUpstream((_req, res) =>
      json(res, 200, { keys: [{ ...key.jwk, extra: Array.from({ length: 20_000 }, () => ({})) }] }),
    );
    try {
      const uri = `${keysServer.url}/jwks`;
      const { client_id: clientId } = await registered({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: uri });
      await clientCredentials(clientId, await assertion(key, clientId)).expect(200);
      const kept = stores.clientKeySets.kept(uri)!;
      expect(kept).toHaveLength(1);
      expect(JSON.stringify(kept).length).toBeLessThan(400);
    } finally {
      await keysServer.close();
    }
  });
});

describe('private_key_jwt with a jwks_uri', () => {
  let keysServer: FakeUpstream;
  let served: JWK[] = [];
  beforeAll(async () => {
    keysServer = await startFakeUpstream((_req, res) => json(res, 200, { keys: served }));
  });
  afterAll(() => keysServer.close());

  it('fetches the keys, and fetches again when the client signs with a new key, at most every few seconds', async () => {
    const first = await keyPair('rotating-1');
    served = [first.jwk];
    const { client_id: clientId } = await registered({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `${keysServer.url}/jwks` });
    await clientCredentials(clientId, await assertion(first, clientId)).expect(200);
    const second = await keyPair('rotating-2', 'RS256');
    served = [first.jwk, second.jwk];
    // A key id the copy lacks is fetched again only once the copy is older than JWKS_LIMITS.refetchAfterMs.
    await clientCredentials(clientId, await assertion(second, clientId)).expect(401);
    keysClock.move(JWKS_LIMITS.refetchAfterMs + 1);
    await clientCredentials(clientId, await assertion(second, clientId)).expect(200);
    expect(keysServer.requests.filter((r) => r.url.pathname === '/jwks')).toHaveLength(2);
  });

  it.each([
    ['redirects', (res: import('node:http').ServerResponse) => res.writeHead(302, { Location: '/elsewhere' }).end()],
    ['answers a huge document', (res: import('node:http').ServerResponse) => json(res, 200, { keys: [], padding: 'x'.repeat(200_000) })],
    ['answers too slowly', (res: import('node:http').ServerResponse) => void setTimeout(() => json(res, 200, { keys: [] }), 5000)],
    ['answers something that is not a key set', (res: import('node:http').ServerResponse) => json(res, 200, { hello: 'world' })],
  ])(
    'refuses a client whose jwks_uri %s, within a bounded time',
    async (_case, answer) => {
      const key = await keyPair('k1');
      const bad = await startFakeUpstream((_req, res) => answer(res));
      try {
        const { client_id: clientId } = await registered({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `${bad.url}/jwks` });
        const started = Date.now();
        const res = await clientCredentials(clientId, await assertion(key, clientId)).expect(401);
        expect(res.body.error).toBe('invalid_client');
        expect(Date.now() - started).toBeLessThan(4500);
      } finally {
        await bad.close();
      }
    },
    15_000,
  );
});

describe('client_secret_jwt', () => {
  it('authenticates openid-client with an HMAC under the secret, which is stored sealed', async () => {
    const { client_id: clientId, client_secret: secret } = await registered({ token_endpoint_auth_method: 'client_secret_jwt' });
    expect(secret).toEqual(expect.any(String));
    const config = await oidc.discovery(new URL(liveApp().issuer), clientId, undefined, oidc.ClientSecretJwt(secret), insecure);
    expect((await oidc.clientCredentialsGrant(config, { scope: 'read' })).access_token).toEqual(expect.any(String));
    const stored = await ClientModel.findById(clientId).lean();
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored?.secretSealed?.data).toEqual(expect.any(String));
    // The secret alone is not how this client authenticates.
    await request(liveApp().app)
      .post('/oauth/token')
      .set('Authorization', basicAuth(clientId, secret!))
      .type('form')
      .send({ grant_type: 'client_credentials' })
      .expect(401);
  });
});

describe('registration', () => {
  it.each([
    ['private_key_jwt without keys', { token_endpoint_auth_method: 'private_key_jwt' }, 'private_key_jwt needs jwks or jwks_uri'],
    ['jwks and jwks_uri together', { jwks: { keys: [] }, jwks_uri: 'https://rp.example.com/jwks' }, 'Send jwks or jwks_uri, not both'],
    [
      'a private key',
      { jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b', d: 'c' }] } },
      'jwks must hold public keys only (no private or symmetric key material)',
    ],
    [
      'a symmetric key',
      { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } },
      'jwks must hold public keys only (no private or symmetric key material)',
    ],
    ['an empty key set', { jwks: { keys: [] } }, 'jwks must hold 1 to 10 keys'],
    ['a jwks_uri that is no URL', { jwks_uri: 'ftp://rp.example.com/jwks' }, 'jwks_uri must be an https URL of a public host'],
    [
      'an HMAC signing alg for private_key_jwt',
      { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://rp.example.com/jwks', token_endpoint_auth_signing_alg: 'HS256' },
      'token_endpoint_auth_signing_alg must go with private_key_jwt (RS256, PS256, ES256) or client_secret_jwt (HS256)',
    ],
  ])('refuses %s as invalid_client_metadata, registering nothing', async (_case, metadata, description) => {
    const before = await ClientModel.countDocuments();
    const res = await register(metadata);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_client_metadata', error_description: description });
    expect(await ClientModel.countDocuments()).toBe(before);
  });

  it('advertises the methods and their algorithms in discovery', async () => {
    const { body } = await request(liveApp().app).get('/.well-known/openid-configuration').expect(200);
    expect(body.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['private_key_jwt', 'client_secret_jwt']));
    expect(body.token_endpoint_auth_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'HS256']);
  });
});
