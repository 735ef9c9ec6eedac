import request from 'supertest';
import { TokenModel } from '../../src/oauth/tokens/tokens.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { clientSecretPost, codeExchange, authorizationCode, passwordGrant, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

async function passwordToken(scope = 'read') {
  const { client, user, tokens } = await passwordGrant(app, { scope });
  return { client, user, token: tokens.access_token };
}

function expectInvalidToken(res: request.Response) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_request"');
}

describe('GET /api/user', () => {
  it('returns the user record, shaped like GET /users/:id, for a variant B token', async () => {
    const { user, token } = await passwordToken();
    const res = await request(app).get('/api/user').set('Authorization', `Bearer ${token}`).expect(200);
    const direct = await request(app).get(`/users/${user.id}`).expect(200);
    expect(res.body).toEqual(direct.body);
  });

  it('returns the user record for a variant A token', async () => {
    const client = await registerClient();
    const { code, user } = await authorizationCode(app, client);
    const token = await request(app).post('/v1/oauth/token').query(codeExchange(client, code)).expect(200);
    const res = await request(app).get('/api/user').set('Authorization', `Bearer ${token.body.access_token}`).expect(200);
    expect(res.body.email).toBe(user.email);
  });

  it.each([undefined, 'Basic dXNlcjpwYXNz'])(
    'answers 401 with a bare Bearer challenge and no error code for the header %s',
    async (header) => {
      const req = request(app).get('/api/user');
      if (header) req.set('Authorization', header);
      const res = await req.expect(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
      expect(res.body).toEqual({ error_description: 'Send an access token as Authorization: Bearer <token>' });
    },
  );

  it.each(['Bearer made-up-token', 'Bearer', 'Bearer a b'])('answers 401 invalid_request for "%s"', async (header) => {
    expectInvalidToken(await request(app).get('/api/user').set('Authorization', header));
  });

  it('answers 401 invalid_request for an expired token', async () => {
    const { client, token } = await passwordToken();
    await TokenModel.updateMany({ clientId: client.client_id }, { $set: { accessTokenExpiresAt: new Date(Date.now() - 1000) } });
    expectInvalidToken(await request(app).get('/api/user').set('Authorization', `Bearer ${token}`));
  });

  it('answers 401 invalid_request for a revoked token', async () => {
    const { client, token } = await passwordToken();
    await request(app)
      .post('/oauth/revoke')
      .type('form')
      .send({ ...clientSecretPost(client), token })
      .expect(200);
    expectInvalidToken(await request(app).get('/api/user').set('Authorization', `Bearer ${token}`));
  });

  it('refuses a token at once after a revoke it had cached, and works the same with the caches off', async () => {
    for (const server of [app, testApp({ CREDENTIAL_CACHE: 'off' })]) {
      const { client, tokens } = await passwordGrant(server, { scope: 'read' });
      const me = () => request(server).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`);
      await me().expect(200);
      await me().expect(200);
      await request(server)
        .post('/oauth/revoke')
        .type('form')
        .send({ ...clientSecretPost(client), token: tokens.access_token })
        .expect(200);
      expectInvalidToken(await me());
    }
  });

  it('answers 401 invalid_request once the user is deleted', async () => {
    const { user, token } = await passwordToken();
    await request(app).delete(`/users/${user.id}`).expect(204);
    expectInvalidToken(await request(app).get('/api/user').set('Authorization', `Bearer ${token}`));
  });

  it('answers 403 insufficient_scope for a token without the read scope', async () => {
    const { token } = await passwordToken('write');
    const res = await request(app).get('/api/user').set('Authorization', `Bearer ${token}`).expect(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="insufficient_scope"');
  });

  it('does not accept the token in the query string', async () => {
    const { token } = await passwordToken();
    await request(app).get('/api/user').query({ access_token: token }).expect(401);
  });
});
