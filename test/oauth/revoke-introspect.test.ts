import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { clientSecretPost, basicAuth as basic, passwordGrant, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp();
const tokensFor = () => passwordGrant(app);
const me = (token: string) => request(app).get('/api/user').set('Authorization', `Bearer ${token}`);

describe('POST /oauth/revoke (RFC 7009)', () => {
  it('revokes an access token, authenticated by HTTP Basic, with 200 and an empty JSON object', async () => {
    const { client, tokens } = await tokensFor();
    const res = await request(app)
      .post('/oauth/revoke')
      .set('Authorization', basic(client.client_id, client.client_secret))
      .type('form')
      .send({ token: tokens.access_token, token_type_hint: 'access_token' })
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({});
    await me(tokens.access_token).expect(401);
  });

  it('revokes a refresh token and every token of its family', async () => {
    const { client, tokens } = await tokensFor();
    await request(app)
      .post('/oauth/revoke')
      .type('form')
      .send({
        ...clientSecretPost(client),
        token: tokens.refresh_token,
        token_type_hint: 'refresh_token',
      })
      .expect(200);
    await me(tokens.access_token).expect(401);
    const refreshed = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({
        grant_type: 'refresh_token',
        ...clientSecretPost(client),
        refresh_token: tokens.refresh_token,
      });
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it("answers 200 for an unknown token and leaves other clients' tokens alone", async () => {
    const { tokens } = await tokensFor();
    const other = await registerClient();
    await request(app)
      .post('/oauth/revoke')
      .type('form')
      .send({ ...clientSecretPost(other), token: 'unknown' })
      .expect(200);
    await request(app)
      .post('/oauth/revoke')
      .type('form')
      .send({ ...clientSecretPost(other), token: tokens.access_token })
      .expect(200);
    await me(tokens.access_token).expect(200);
  });

  it('answers 401 invalid_client without valid client credentials', async () => {
    const { client, tokens } = await tokensFor();
    const res = await request(app)
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: client.client_id, client_secret: 'wrong', token: tokens.access_token })
      .expect(401);
    expect(res.body.error).toBe('invalid_client');
    await me(tokens.access_token).expect(200);
  });

  it('answers invalid_request when the client authenticates two ways at once', async () => {
    const { client } = await tokensFor();
    const res = await request(app)
      .post('/oauth/revoke')
      .set('Authorization', basic(client.client_id, client.client_secret))
      .type('form')
      .send({ ...clientSecretPost(client), token: 'x' })
      .expect(400);
    expect(res.body.error).toBe('invalid_request');
  });
});

describe('POST /oauth/introspect (RFC 7662)', () => {
  it('describes an active access token of the calling client', async () => {
    const { client, user, tokens } = await tokensFor();
    const res = await request(app)
      .post('/oauth/introspect')
      .set('Authorization', basic(client.client_id, client.client_secret))
      .type('form')
      .send({ token: tokens.access_token })
      .expect(200);
    expect(res.body).toEqual({
      active: true,
      scope: 'read',
      client_id: client.client_id,
      token_type: 'Bearer',
      exp: expect.any(Number),
      iat: expect.any(Number),
      sub: user.id,
    });
    expect(res.body.exp - res.body.iat).toBe(31536000);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('describes a refresh token', async () => {
    const { client, tokens } = await tokensFor();
    const res = await request(app)
      .post('/oauth/introspect')
      .type('form')
      .send({
        ...clientSecretPost(client),
        token: tokens.refresh_token,
        token_type_hint: 'refresh_token',
      })
      .expect(200);
    expect(res.body).toMatchObject({ active: true, token_type: 'refresh_token' });
  });

  it("answers active: false for unknown, revoked or another client's tokens", async () => {
    const { client, tokens } = await tokensFor();
    const other = await registerClient();
    const ask = (c: { client_id: string; client_secret: string }, token: string) =>
      request(app)
        .post('/oauth/introspect')
        .type('form')
        .send({ ...clientSecretPost(c), token })
        .expect(200);
    expect((await ask(client, 'unknown')).body).toEqual({ active: false });
    expect((await ask(other, tokens.access_token)).body).toEqual({ active: false });
    await request(app)
      .post('/oauth/revoke')
      .type('form')
      .send({ ...clientSecretPost(client), token: tokens.access_token });
    expect((await ask(client, tokens.access_token)).body).toEqual({ active: false });
  });

  it('answers 401 invalid_client without client credentials', async () => {
    const { tokens } = await tokensFor();
    const res = await request(app).post('/oauth/introspect').type('form').send({ token: tokens.access_token }).expect(401);
    expect(res.body.error).toBe('invalid_client');
  });
});

describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  it('lists the endpoints under PUBLIC_URL and what they support', async () => {
    const res = await request(testApp({ PUBLIC_URL: 'https://auth.example.com' }))
      .get('/.well-known/oauth-authorization-server')
      .expect(200);
    expect(res.body).toMatchObject({
      issuer: 'https://auth.example.com',
      authorization_endpoint: 'https://auth.example.com/oauth/authorize',
      token_endpoint: 'https://auth.example.com/oauth/token',
      revocation_endpoint: 'https://auth.example.com/oauth/revoke',
      introspection_endpoint: 'https://auth.example.com/oauth/introspect',
      scopes_supported: ['read', 'write', 'openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'roles'],
      response_types_supported: ['code', 'token', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'],
      code_challenge_methods_supported: ['S256', 'plain'],
    });
  });
});
