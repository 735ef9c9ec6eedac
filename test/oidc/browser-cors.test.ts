// CORS for browser apps: discovery and the JWK Set answer any origin; the token, userinfo, revocation
// and device endpoints answer the web origins of registered public clients (and CORS_ORIGINS), never
// with credentials, never a wildcard, and no other origin.
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useMonitoredTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';

const { commands: sent } = useMonitoredTestDatabase();

const SPA = 'https://spa.example.com';
const app = testApp({ CORS_ORIGINS: 'https://admin.example.com' });

async function register(metadata: Record<string, unknown>) {
  const person = await createUser();
  const login = await request(app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  const res = await request(app)
    .post('/oauth/register')
    .set('Authorization', `Bearer ${login.body.accessToken}`)
    .send(metadata)
    .expect(201);
  return res.body as { client_id: string; registration_access_token: string };
}

const registerSpa = () =>
  register({
    redirect_uris: [`${SPA}/callback`, 'https://spa.example.com:8443/cb', 'com.example.app:/cb'],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
  });

const preflight = (path: string, origin: string) =>
  request(app)
    .options(path)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'content-type, authorization');

it('answers discovery and the JWK Set for any origin', async () => {
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth/jwks']) {
    const res = await request(app).get(path).set('Origin', 'https://anyone.example.org').expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  }
});

it('serves discovery and the JWK Set with a strong ETag: 304 for a match, and a preflight for GET', async () => {
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth/jwks']) {
    const first = await request(app).get(path).expect(200);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    expect(Number(first.headers['content-length'])).toBe(Buffer.byteLength(first.text));
    // Weak comparison (RFC 9110 §13.1.2), in a list, and *.
    for (const condition of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await request(app).get(path).set('If-None-Match', condition).expect(304);
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['access-control-allow-origin']).toBe('*');
      expect(again.text).toBe('');
    }
    await request(app).get(path).set('If-None-Match', '"other"').expect(200);
    const head = await request(app).head(path).expect(200);
    expect([head.headers.etag, head.headers['content-length'], head.text]).toEqual([etag, first.headers['content-length'], undefined]);
    const options = await request(app).options(path).set('Origin', SPA).set('Access-Control-Request-Method', 'GET').expect(204);
    expect(options.headers['access-control-allow-origin']).toBe('*');
  }
});

it('serves the static documents at their exact paths, GET and HEAD only (docs/decisions.md)', async () => {
  for (const path of ['/.well-known/openid-configuration/', '/OAUTH/JWKS', '/hello/']) await request(app).get(path).expect(404);
  const posted = await request(app).post('/oauth/jwks').send({});
  expect([404, 405]).toContain(posted.status);
  expect(posted.body).not.toHaveProperty('keys');
});

it.each(['/oauth/token', '/oauth/userinfo', '/oauth/revoke', '/oauth/device_authorization'])(
  'answers a preflight to %s from a public client origin, without credentials',
  async (path) => {
    await registerSpa();
    for (const origin of [SPA, 'https://spa.example.com:8443']) {
      const res = await preflight(path, origin).expect(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toContain('POST');
      expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/i);
      expect(res.headers.vary).toMatch(/Origin/);
    }
  },
);

it('lets the app read the token endpoint answer, an error included', async () => {
  const { client_id: clientId } = await registerSpa();
  const res = await request(app)
    .post('/oauth/token')
    .set('Origin', SPA)
    .type('form')
    .send({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: 'nope',
      redirect_uri: `${SPA}/callback`,
      code_verifier: 'x'.repeat(43),
    })
    .expect(400);
  expect(res.body.error).toBe('invalid_grant');
  expect(res.headers['access-control-allow-origin']).toBe(SPA);
});

it('gives no CORS to a confidential client origin, an unregistered one, or null', async () => {
  await register({ redirect_uris: ['https://server-side.example.com/callback'] });
  await registerSpa();
  for (const origin of ['https://server-side.example.com', 'https://evil.example.com', 'null', 'http://spa.example.com']) {
    const res = await preflight('/oauth/token', origin);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  }
});

it('adds CORS_ORIGINS to the client endpoints and keeps them for the rest of the API', async () => {
  const token = await preflight('/oauth/token', 'https://admin.example.com').expect(204);
  expect(token.headers['access-control-allow-origin']).toBe('https://admin.example.com');
  const users = await request(app).get('/users').set('Origin', 'https://admin.example.com').expect(200);
  expect(users.headers['access-control-allow-origin']).toBe('https://admin.example.com');
  // A public client's origin is not an origin of the rest of the API.
  await registerSpa();
  const other = await request(app).get('/users').set('Origin', SPA).expect(200);
  expect(other.headers['access-control-allow-origin']).toBeUndefined();
});

it('stops answering an origin once its client is deleted', async () => {
  const origin = 'https://short-lived.example.com';
  const { client_id: clientId, registration_access_token: registrationToken } = await register({
    redirect_uris: [`${origin}/callback`],
    token_endpoint_auth_method: 'none',
  });
  expect((await preflight('/oauth/userinfo', origin)).headers['access-control-allow-origin']).toBe(origin);
  await request(app).delete(`/oauth/register/${clientId}`).set('Authorization', `Bearer ${registrationToken}`).expect(204);
  expect((await preflight('/oauth/userinfo', origin)).headers['access-control-allow-origin']).toBeUndefined();
});

describe('the origins an anonymous caller sends', () => {
  const clientReads = () => sent.filter((command) => command === 'find oauth_clients');

  it('are looked up only when they are origins, and a flood of new ones reads the database once', async () => {
    await registerSpa();
    // The first request after the change loads the public clients' origins.
    await request(app).get('/oauth/userinfo').set('Origin', 'https://first.example.net').expect(401);
    sent.length = 0;
    for (let i = 0; i < 50; i++) {
      const origin = i % 2 === 0 ? `https://unknown-${i}.example.net` : `https://x${'y'.repeat(16_000)}${i}.example.net`;
      const res = await request(app).get('/oauth/userinfo').set('Origin', origin).expect(401);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(clientReads()).toEqual([]);
    // The registered app's origin still gets its answer, from the same set.
    const allowed = await request(app).get('/oauth/userinfo').set('Origin', SPA).expect(401);
    expect(allowed.headers['access-control-allow-origin']).toBe(SPA);
    expect(clientReads()).toEqual([]);
  });

  it('refuses what is no origin without a look: a path, a trailing slash, upper case, more than 255 characters', async () => {
    await registerSpa();
    for (const origin of [`${SPA}/`, `${SPA}/callback`, 'HTTPS://SPA.EXAMPLE.COM', 'null', `https://${'a'.repeat(250)}.com`]) {
      const res = await request(app).get('/oauth/userinfo').set('Origin', origin).expect(401);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
