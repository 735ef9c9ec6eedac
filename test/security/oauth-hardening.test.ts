// OAuth holes found in the attack before release: a refused refresh changed state, lower-case
// `bearer` was refused, redirect URIs took control characters and user info, a refresh across
// clients confirmed the token existed; and client credentials in Basic were not form-decoded.
import request from 'supertest';
import * as clientsService from '../../src/oauth/clients/clients.service';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { clientSecretPost, basicAuth, passwordGrant, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

const refresh = (client: { client_id: string; client_secret: string }, refreshToken: string, extra: Record<string, string> = {}) =>
  request(app)
    .post('/oauth/token')
    .type('form')
    .send({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      ...clientSecretPost(client),
      ...extra,
    });

it('answers invalid_scope to a refresh asking for more, and changes nothing', async () => {
  const { client, tokens } = await passwordGrant(app, { scope: 'read' });
  const wider = await refresh(client, tokens.refresh_token, { scope: 'read write' }).expect(400);
  expect(wider.body.error).toBe('invalid_scope');
  await request(app).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
  const again = await refresh(client, tokens.refresh_token).expect(200);
  expect(again.body.refresh_token).toBeDefined();
});

it("answers a refresh with another client's token exactly as an unknown token, and leaves it usable", async () => {
  const { client, tokens } = await passwordGrant(app);
  const other = await registerClient({ grants: ['password', 'refresh_token'] });
  const crossed = await refresh(other, tokens.refresh_token).expect(400);
  const unknown = await refresh(other, 'no-such-refresh-token').expect(400);
  expect(crossed.body).toEqual(unknown.body);
  await refresh(client, tokens.refresh_token).expect(200);
});

it('accepts the Bearer scheme in any case on /api/user (RFC 7235)', async () => {
  const { tokens, user } = await passwordGrant(app);
  for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
    const res = await request(app).get('/api/user').set('Authorization', `${scheme} ${tokens.access_token}`).expect(200);
    expect(res.body.email).toBe(user.email);
  }
});

describe('redirect_uri registration', () => {
  const register = async (redirectUri: string) => {
    const owner = await createUser();
    const jwt = (await request(app).post('/auth').send({ email: owner.email, password: owner.password })).body.accessToken;
    return request(app)
      .post('/oauth/clients')
      .set('Authorization', `Bearer ${jwt}`)
      .send({ name: 'App', website: 'https://app.example.com', redirect_uri: redirectUri });
  };

  it.each([
    ['CR/LF', 'https://app.example.com/cb\r\nSet-Cookie: x=1'],
    ['a tab', 'https://app.example.com/c\tb'],
    ['a space', 'https://app.example.com/c b'],
    ['user info', 'http://user:pw@app.example.com/cb'],
    ['a user name alone', 'https://evil@app.example.com/cb'],
    ['a fragment', 'https://app.example.com/cb#x'],
    ['another scheme', 'javascript://app.example.com/cb'],
  ])('refuses %s', async (_what, redirectUri) => {
    const res = await register(redirectUri);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ path: 'redirect_uri' });
  });

  it('stores the URI as registered, and takes it only as the same string (RFC 9700 §2.1: no normalising)', async () => {
    const res = await register('https://App.Example.com/Callback?x=1');
    expect(res.status).toBe(201);
    expect(res.body.redirect_uri).toBe('https://App.Example.com/Callback?x=1');
    const { agent } = await signedInAgent(app);
    const ask = (redirectUri: string) =>
      agent.get('/oauth/authorize').query({ response_type: 'code', client_id: res.body.client_id, redirect_uri: redirectUri });
    await ask('https://App.Example.com/Callback?x=1').expect(200);
    for (const other of [
      'https://app.example.com/Callback?x=1',
      'HTTPS://App.Example.com/Callback?x=1',
      'https://App.Example.com:443/Callback?x=1',
      'https://App.Example.com/x/../Callback?x=1',
      'https://App.Example.com/callback?x=1',
    ]) {
      const refused = await ask(other).expect(400);
      expect(refused.text).toContain('Invalid redirect address');
    }
  });
});

describe('client_secret_basic', () => {
  // RFC 6749 §2.3.1: id and secret are form-encoded before Basic; openid-client sends - as %2D and _ as %5F.
  const formEncodedBasic = (id: string, secret: string) => {
    const encode = (value: string) => encodeURIComponent(value).replace(/-/g, '%2D').replace(/_/g, '%5F');
    return basicAuth(encode(id), encode(secret));
  };

  it('decodes the credentials on the token, revocation and introspection endpoints', async () => {
    let client = await registerClient({ grants: ['client_credentials'] });
    for (let i = 0; i < 20 && !/[-_]/.test(client.client_id + client.client_secret); i += 1)
      client = await registerClient({ grants: ['client_credentials'] });
    expect(client.client_id + client.client_secret).toMatch(/[-_]/);
    const authorization = formEncodedBasic(client.client_id, client.client_secret);
    const issued = await request(app)
      .post('/oauth/token')
      .set('Authorization', authorization)
      .type('form')
      .send({ grant_type: 'client_credentials' })
      .expect(200);
    const introspected = await request(app)
      .post('/oauth/introspect')
      .set('Authorization', authorization)
      .type('form')
      .send({ token: issued.body.access_token })
      .expect(200);
    expect(introspected.body.active).toBe(true);
    await request(app)
      .post('/oauth/revoke')
      .set('Authorization', authorization)
      .type('form')
      .send({ token: issued.body.access_token })
      .expect(200);
    const after = await request(app)
      .post('/oauth/introspect')
      .set('Authorization', authorization)
      .type('form')
      .send({ token: issued.body.access_token });
    expect(after.body.active).toBe(false);
  });

  it('refuses credentials whose encoding does not decode', async () => {
    const client = await clientsService.register(undefined, {
      name: 'X',
      website: 'https://x.example.com',
      redirect_uri: 'https://x.example.com/cb',
      grants: ['client_credentials'],
    });
    const res = await request(app)
      .post('/oauth/token')
      .set('Authorization', basicAuth(`${client.client_id}%`, client.client_secret))
      .type('form')
      .send({ grant_type: 'client_credentials' });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });
});
