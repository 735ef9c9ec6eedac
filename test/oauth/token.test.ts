import request from 'supertest';
import { TokenModel } from '../../src/oauth/tokens/tokens.model';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import {
  clientSecretPost,
  codeExchange,
  ALL_GRANTS,
  authorizationCode,
  basicAuth as basic,
  passwordGrant as grantPassword,
  pkcePair,
  REDIRECT_URI,
  registerClient,
} from '../helpers/oauth';

useTestDatabase();
const app = testApp();

const me = (token: string) => request(app).get('/api/user').set('Authorization', `Bearer ${token}`);

function expectOAuthError(res: request.Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error, error_description: expect.any(String) });
  expect(res.headers['cache-control']).toBe('no-store');
}

describe('variant A: POST /v1/oauth/token', () => {
  it('exchanges a code given in the query string for the variant A response', async () => {
    const client = await registerClient();
    const { code, user } = await authorizationCode(app, client, { scope: 'read write' });
    const res = await request(app).post('/v1/oauth/token').query(codeExchange(client, code)).expect(200);
    const stored = await UserModel.findById((await me(res.body.access_token).expect(200)).body._id).lean();
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 2592000,
      refresh_token: expect.any(String),
      scope: 'read write',
      uid: stored!.uid,
      info: { name: `${user.firstName} ${user.lastName}`, email: user.email },
    });
    expect(Number.isInteger(res.body.uid)).toBe(true);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('accepts the parameters as a form body too, and names a user without names by email', async () => {
    const client = await registerClient();
    const nameless = await createUser({ firstName: undefined, lastName: undefined });
    const { code } = await authorizationCode(app, client, {}, nameless);
    const res = await request(app).post('/v1/oauth/token').type('form').send(codeExchange(client, code)).expect(200);
    expect(res.body.scope).toBe('read');
    expect(res.body.info).toEqual({ name: nameless.email, email: nameless.email });
  });

  it('renews with refresh_token and answers in the same shape', async () => {
    const client = await registerClient();
    const { code } = await authorizationCode(app, client);
    const first = await request(app).post('/v1/oauth/token').query(codeExchange(client, code)).expect(200);
    const renewed = await request(app)
      .post('/v1/oauth/token')
      .query({
        grant_type: 'refresh_token',
        ...clientSecretPost(client),
        refresh_token: first.body.refresh_token,
      })
      .expect(200);
    expect(renewed.body).toMatchObject({
      token_type: 'bearer',
      expires_in: 2592000,
      scope: 'read',
      uid: first.body.uid,
      info: first.body.info,
    });
    expect(renewed.body.refresh_token).not.toBe(first.body.refresh_token);
    await me(renewed.body.access_token).expect(200);
  });

  it.each(['password', 'client_credentials', 'implicit'])('answers unsupported_grant_type for %s', async (grantType) => {
    const client = await registerClient({ grants: ALL_GRANTS });
    const res = await request(app)
      .post('/v1/oauth/token')
      .query({
        grant_type: grantType,
        ...clientSecretPost(client),
        username: 'a@example.com',
        password: 'x',
      });
    expectOAuthError(res, 400, 'unsupported_grant_type');
  });

  it('answers invalid_request when a parameter is in both the query and the body', async () => {
    const client = await registerClient();
    const res = await request(app)
      .post('/v1/oauth/token')
      .query({ grant_type: 'authorization_code' })
      .type('form')
      .send({ grant_type: 'authorization_code', client_id: client.client_id });
    expectOAuthError(res, 400, 'invalid_request');
  });
});

describe('variant B: POST /oauth/token', () => {
  it('issues a Passport-shaped token for the password grant, and it works on /api/user', async () => {
    const { user, tokens } = await grantPassword(app);
    expect(tokens).toEqual({
      token_type: 'Bearer',
      expires_in: 31536000,
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    expect((await me(tokens.access_token).expect(200)).body.email).toBe(user.email);
  });

  it('accepts a JSON body', async () => {
    const client = await registerClient({ grants: ['password'] });
    const user = await createUser();
    await request(app)
      .post('/oauth/token')
      .send({
        grant_type: 'password',
        ...clientSecretPost(client),
        username: user.email,
        password: user.password,
      })
      .expect(200);
  });

  it('issues no token for a wrong password or an unknown user', async () => {
    const client = await registerClient({ grants: ['password'] });
    const user = await createUser();
    for (const [username, password] of [
      [user.email, 'wrong-password'],
      ['nobody@example.com', user.password],
    ]) {
      const res = await request(app)
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: 'password', ...clientSecretPost(client), username, password });
      expectOAuthError(res, 400, 'invalid_grant');
    }
    expect(await TokenModel.countDocuments({ clientId: client.client_id })).toBe(0);
  });

  it('issues client_credentials tokens without a refresh token, authenticated by HTTP Basic', async () => {
    const client = await registerClient({ grants: ['client_credentials'] });
    const res = await request(app)
      .post('/oauth/token')
      .set('Authorization', basic(client.client_id, client.client_secret))
      .type('form')
      .send({ grant_type: 'client_credentials' })
      .expect(200);
    expect(res.body).toEqual({ token_type: 'Bearer', expires_in: 31536000, access_token: expect.any(String) });
    const resource = await me(res.body.access_token).expect(403);
    expect(resource.body.error).toBe('insufficient_scope');
  });

  it.each([
    ['a wrong secret in parameters', (id: string) => ({ body: { client_id: id, client_secret: 'wrong' } })],
    ['a wrong secret by Basic', (id: string) => ({ header: basic(id, 'wrong'), body: {} })],
    ['an unknown client', () => ({ body: { client_id: 'unknown', client_secret: 'whatever' } })],
    ['no credentials at all', () => ({ body: {} })],
  ])('answers 401 invalid_client and issues nothing for %s', async (_case, credentials) => {
    const client = await registerClient({ grants: ['client_credentials'] });
    const { header, body } = credentials(client.client_id) as { header?: string; body: Record<string, string> };
    const req = request(app).post('/oauth/token').type('form');
    if (header) req.set('Authorization', header);
    const res = await req.send({ grant_type: 'client_credentials', ...body });
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
    expect(await TokenModel.countDocuments({ clientId: client.client_id })).toBe(0);
  });

  it('answers unauthorized_client for a grant the client is not allowed', async () => {
    const client = await registerClient({ grants: ['authorization_code'] });
    const res = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'client_credentials', ...clientSecretPost(client) });
    expectOAuthError(res, 400, 'unauthorized_client');
  });

  it.each([
    ['a missing grant_type', { grant_type: undefined }, 'invalid_request'],
    ['an unknown grant_type', { grant_type: 'magic' }, 'unsupported_grant_type'],
    ['an invalid scope', { scope: 'admin' }, 'invalid_scope'],
  ])('answers %s with the RFC error', async (_case, change, error) => {
    const client = await registerClient({ grants: ALL_GRANTS });
    const body: Record<string, string | undefined> = {
      grant_type: 'client_credentials',
      ...clientSecretPost(client),
      ...change,
    };
    const res = await request(app)
      .post('/oauth/token')
      .send(Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));
    expectOAuthError(res, 400, error);
  });

  it.each([
    ['a repeated parameter', 'grant_type=client_credentials&grant_type=password'],
    ['an over-long parameter', `grant_type=client_credentials&client_id=${'x'.repeat(3000)}`],
  ])('answers invalid_request for %s', async (_case, form) => {
    const res = await request(app).post('/oauth/token').type('form').send(form);
    expectOAuthError(res, 400, 'invalid_request');
  });

  it.each([
    ['an object', { grant_type: { $ne: null } }],
    ['a number', { grant_type: 42 }],
    ['an array', { grant_type: ['client_credentials'] }],
  ])('answers invalid_request when a JSON parameter is %s, never 500', async (_case, body) => {
    const res = await request(app).post('/oauth/token').send(body);
    expectOAuthError(res, 400, 'invalid_request');
  });

  it.each([
    ['malformed JSON', 'application/json', '{"grant_type": '],
    ['an unsupported charset', 'application/json; charset=latin2', '{}'],
  ])("answers %s with an RFC 6749 error, not the users' format", async (_case, type, body) => {
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
      const res = await request(app).post(path).set('Content-Type', type).send(body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
  });

  it('stores tokens only as hashes', async () => {
    const { client, tokens } = await grantPassword(app);
    const stored = JSON.stringify(await TokenModel.find({ clientId: client.client_id }).lean());
    expect(stored).not.toContain(tokens.access_token);
    expect(stored).not.toContain(tokens.refresh_token);
  });
});

describe('authorization codes', () => {
  const exchange = (client: { client_id: string; client_secret: string }, code: string, extra: Record<string, string> = {}) =>
    request(app)
      .post('/oauth/token')
      .type('form')
      .send({ ...codeExchange(client, code), ...extra });

  it('are single-use: a second exchange fails and revokes the tokens of the first', async () => {
    const client = await registerClient();
    const { code } = await authorizationCode(app, client);
    const first = await exchange(client, code).expect(200);
    await me(first.body.access_token).expect(200);
    expectOAuthError(await exchange(client, code), 400, 'invalid_grant');
    await me(first.body.access_token).expect(401);
    expectOAuthError(
      await request(app)
        .post('/oauth/token')
        .type('form')
        .send({
          grant_type: 'refresh_token',
          ...clientSecretPost(client),
          refresh_token: first.body.refresh_token,
        }),
      400,
      'invalid_grant',
    );
  });

  it('let only one of several concurrent exchanges succeed', async () => {
    const client = await registerClient();
    const { code } = await authorizationCode(app, client);
    const statuses = (await Promise.all([1, 2, 3].map(() => exchange(client, code)))).map((res) => res.status);
    expect(statuses.sort()).toEqual([200, 400, 400]);
  });

  it('answer invalid_grant for an unknown code, another client, or an expired code', async () => {
    const client = await registerClient();
    const other = await registerClient();
    const { code } = await authorizationCode(app, client);
    expectOAuthError(await exchange(client, 'made-up-code'), 400, 'invalid_grant');
    expectOAuthError(await exchange(other, code), 400, 'invalid_grant');
    const { code: old } = await authorizationCode(app, client);
    const { CodeModel } = await import('../../src/oauth/tokens/tokens.model');
    await CodeModel.updateMany({ clientId: client.client_id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expectOAuthError(await exchange(client, old), 400, 'invalid_grant');
  });

  it('require the same redirect_uri as the authorization request, as the same string: invalid_grant otherwise (RFC 6749 §5.2)', async () => {
    const client = await registerClient();
    for (const other of [
      'https://client.example.com/other',
      'https://CLIENT.example.com/callback',
      'https://client.example.com:443/callback',
    ]) {
      const { code } = await authorizationCode(app, client);
      expectOAuthError(await exchange(client, code, { redirect_uri: other }), 400, 'invalid_grant');
    }
  });

  it.each(['S256', 'plain'] as const)('verify a %s PKCE code_verifier', async (method) => {
    const client = await registerClient();
    const pkce = pkcePair(method);
    const { code } = await authorizationCode(app, client, { code_challenge: pkce.challenge, code_challenge_method: method });
    await exchange(client, code, { code_verifier: pkce.verifier }).expect(200);
  });

  it('refuse a wrong or missing PKCE verifier, spending the code', async () => {
    const client = await registerClient();
    const pkce = pkcePair('S256');
    const { code } = await authorizationCode(app, client, { code_challenge: pkce.challenge, code_challenge_method: 'S256' });
    expectOAuthError(await exchange(client, code, { code_verifier: pkcePair().verifier }), 400, 'invalid_grant');
    expectOAuthError(await exchange(client, code, { code_verifier: pkce.verifier }), 400, 'invalid_grant');
    const { code: second } = await authorizationCode(app, client, { code_challenge: pkce.challenge, code_challenge_method: 'S256' });
    expectOAuthError(await exchange(client, second), 400, 'invalid_grant');
  });

  it('still require the client secret with PKCE', async () => {
    const client = await registerClient();
    const pkce = pkcePair('S256');
    const { code } = await authorizationCode(app, client, { code_challenge: pkce.challenge, code_challenge_method: 'S256' });
    const res = await request(app).post('/oauth/token').type('form').send({
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkce.verifier,
    });
    expectOAuthError(res, 401, 'invalid_client');
  });
});

describe('refresh tokens', () => {
  const passwordGrant = (scope = 'read write') => grantPassword(app, { scope });
  const refresh = (client: { client_id: string; client_secret: string }, refreshToken: string, scope?: string) =>
    request(app)
      .post('/oauth/token')
      .type('form')
      .send({
        grant_type: 'refresh_token',
        ...clientSecretPost(client),
        refresh_token: refreshToken,
        ...(scope ? { scope } : {}),
      });

  it('rotate: each use gives a new refresh token, and the old access token stays valid', async () => {
    const { client, tokens } = await passwordGrant();
    const renewed = await refresh(client, tokens.refresh_token).expect(200);
    expect(renewed.body.refresh_token).not.toBe(tokens.refresh_token);
    await me(tokens.access_token).expect(200);
    await me(renewed.body.access_token).expect(200);
  });

  it('revoke the whole family when a rotated refresh token is presented again', async () => {
    const { client, tokens } = await passwordGrant();
    const renewed = await refresh(client, tokens.refresh_token).expect(200);
    expectOAuthError(await refresh(client, tokens.refresh_token), 400, 'invalid_grant');
    await me(renewed.body.access_token).expect(401);
    await me(tokens.access_token).expect(401);
    expectOAuthError(await refresh(client, renewed.body.refresh_token), 400, 'invalid_grant');
  });

  it('never widen the scope, and may narrow it', async () => {
    const { client, tokens } = await passwordGrant('read');
    expectOAuthError(await refresh(client, tokens.refresh_token, 'read write'), 400, 'invalid_scope');
    const wide = await passwordGrant('read write');
    await refresh(wide.client, wide.tokens.refresh_token, 'read').expect(200);
    const stored = await TokenModel.find({ clientId: wide.client.client_id }).lean();
    expect(stored.map((token) => token.scope.join(' ')).sort()).toEqual(['read', 'read write']);
  });

  it('belong to their client', async () => {
    const { tokens } = await passwordGrant();
    const other = await registerClient({ grants: ['refresh_token'] });
    expectOAuthError(await refresh(other, tokens.refresh_token), 400, 'invalid_grant');
  });

  it('expire', async () => {
    const { client, tokens } = await passwordGrant();
    await TokenModel.updateMany({ clientId: client.client_id }, { $set: { refreshTokenExpiresAt: new Date(Date.now() - 1000) } });
    expectOAuthError(await refresh(client, tokens.refresh_token), 400, 'invalid_grant');
  });
});
