import jwt from 'jsonwebtoken';
import request from 'supertest';
import { TEST_JWT_SECRET, testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';

useTestDatabase();
const app = testApp();

async function login() {
  const user = await createUser();
  const res = await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
  return { user, accessToken: res.body.accessToken as string, refreshToken: res.body.refreshToken as string };
}

const refresh = (authorization: string | undefined, body: unknown) => {
  const req = request(app).post('/auth/refresh-token');
  if (authorization !== undefined) req.set('Authorization', authorization);
  return req.send(body as object);
};

describe('POST /auth/refresh-token', () => {
  it('returns 201 with a new pair for a valid access token and its refresh token', async () => {
    const { user, accessToken, refreshToken } = await login();
    const res = await refresh(`Bearer ${accessToken}`, { refreshToken }).expect(201);
    expect(res.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    expect(res.body.refreshToken).not.toBe(refreshToken);
    const claims = jwt.verify(res.body.accessToken, TEST_JWT_SECRET) as jwt.JwtPayload;
    expect(claims).toMatchObject({ userId: user.id, email: user.email });
    expect(claims.refreshKey).not.toBe((jwt.decode(accessToken) as jwt.JwtPayload).refreshKey);
    // The new pair works in turn.
    await refresh(`Bearer ${res.body.accessToken}`, { refreshToken: res.body.refreshToken }).expect(201);
  });

  it("issues the new pair with the user's current permissionFlags", async () => {
    const { user, accessToken, refreshToken } = await login();
    await request(app).patch(`/users/${user.id}`).send({ permissionFlags: 5 }).expect(204);
    const res = await refresh(`Bearer ${accessToken}`, { refreshToken }).expect(201);
    expect((jwt.decode(res.body.accessToken) as jwt.JwtPayload).permissionFlags).toBe(5);
  });

  it('answers 400 "Invalid refresh token" when a refresh token is used twice', async () => {
    const { accessToken, refreshToken } = await login();
    await refresh(`Bearer ${accessToken}`, { refreshToken }).expect(201);
    const res = await refresh(`Bearer ${accessToken}`, { refreshToken }).expect(400);
    expect(res.body).toEqual({ errors: ['Invalid refresh token'] });
  });

  it('lets only one of several concurrent uses of the same refresh token succeed', async () => {
    // Repeated, because a race that is lost only sometimes must still fail this test.
    for (let round = 0; round < 5; round += 1) {
      const { accessToken, refreshToken } = await login();
      const responses = await Promise.all([1, 2, 3, 4].map(() => refresh(`Bearer ${accessToken}`, { refreshToken })));
      expect(responses.map((res) => res.status).sort()).toEqual([201, 400, 400, 400]);
    }
  });

  it('answers 400 for a refresh token issued with another access token', async () => {
    const first = await login();
    const second = await login();
    const res = await refresh(`Bearer ${first.accessToken}`, { refreshToken: second.refreshToken }).expect(400);
    expect(res.body).toEqual({ errors: ['Invalid refresh token'] });
    // The mismatched attempt used nothing up.
    await refresh(`Bearer ${second.accessToken}`, { refreshToken: second.refreshToken }).expect(201);
  });

  it('answers 400 for a refresh token that was never issued', async () => {
    const { accessToken } = await login();
    const res = await refresh(`Bearer ${accessToken}`, { refreshToken: 'made-up-token' }).expect(400);
    expect(res.body).toEqual({ errors: ['Invalid refresh token'] });
  });

  it('answers 403 with an empty body when the user was deleted since: the access token ended with them', async () => {
    const { user, accessToken, refreshToken } = await login();
    await request(app).delete(`/users/${user.id}`).expect(204);
    const res = await refresh(`Bearer ${accessToken}`, { refreshToken }).expect(403);
    expect(res.text).toBe('');
  });

  it.each([
    ['absent', {}],
    ['null', { refreshToken: null }],
    ['empty', { refreshToken: '' }],
  ])('answers 400 "Missing required field: refreshToken" when it is %s', async (_case, body) => {
    const { accessToken } = await login();
    const res = await refresh(`Bearer ${accessToken}`, body).expect(400);
    expect(res.body).toEqual({ errors: ['Missing required field: refreshToken'] });
  });

  it.each([
    ['an operator object', { refreshToken: { $ne: null } }],
    ['a number', { refreshToken: 42 }],
    ['a huge string', { refreshToken: 'r'.repeat(10_000) }],
  ])('answers 400 "Invalid refresh token" when it is %s', async (_case, body) => {
    const { accessToken } = await login();
    const res = await refresh(`Bearer ${accessToken}`, body).expect(400);
    expect(res.body).toEqual({ errors: ['Invalid refresh token'] });
  });

  it('refuses one character over the length the document states, and keeps the pair usable', async () => {
    const { accessToken, refreshToken } = await login();
    const { body: document } = await request(app).get('/openapi.json').expect(200);
    const { maxLength } = document.paths['/auth/refresh-token'].post.requestBody.content['application/json'].schema.properties.refreshToken;
    const res = await refresh(`Bearer ${accessToken}`, { refreshToken: 'r'.repeat(maxLength + 1) }).expect(400);
    expect(res.body).toEqual({ errors: ['Invalid refresh token'] });
    await refresh(`Bearer ${accessToken}`, { refreshToken }).expect(201);
  });

  describe('Authorization header checks, before the body', () => {
    it('answers 401 with an empty body when the header is absent, even with no body', async () => {
      const res = await refresh(undefined, {}).expect(401);
      expect(res.text).toBe('');
    });

    it.each(['Basic dXNlcjpwYXNz', 'Token abc', 'Bearerabc'])('answers 401 with an empty body for "%s"', async (header) => {
      const { refreshToken } = await login();
      const res = await refresh(header, { refreshToken }).expect(401);
      expect(res.text).toBe('');
    });

    const signed = (payload: object, secret: string, options: jwt.SignOptions) => jwt.sign(payload, secret, options);
    const claims = { userId: 'u1', email: 'a@example.com', permissionFlags: 1, refreshKey: 'k' };

    it.each([
      ['a malformed token', () => 'not.a.jwt'],
      ['a missing token', () => ''],
      ['a token signed with another secret', () => signed(claims, 'another-secret-that-is-32-characters-long', { algorithm: 'HS256' })],
      ['an expired token', () => signed({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 }, TEST_JWT_SECRET, { algorithm: 'HS256' })],
      ['a token with another HMAC algorithm', () => signed(claims, TEST_JWT_SECRET, { algorithm: 'HS512' })],
      ['an unsigned token (alg none)', () => jwt.sign(claims, '', { algorithm: 'none' })],
      ['a token without the seed claims', () => signed({ sub: 'x' }, TEST_JWT_SECRET, { algorithm: 'HS256' })],
      ['two tokens', () => `${signed(claims, TEST_JWT_SECRET, { algorithm: 'HS256' })} extra`],
    ])('answers 403 with an empty body for %s', async (_case, token) => {
      const res = await refresh(`Bearer ${token()}`, {}).expect(403);
      expect(res.text).toBe('');
    });
  });
});
