import { createHash } from 'node:crypto';
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { clientSecretPost, passwordGrant } from '../helpers/oauth';

useTestDatabase();

/** The header block's size as sent: `name: value` and CRLF per line. */
const headerBytes = (headers: Record<string, unknown>) =>
  Object.entries(headers).reduce((sum, [name, value]) => sum + name.length + String(value).length + 4, 0);

describe('security headers', () => {
  it('are set on pages, without x-powered-by', async () => {
    const res = await request(testApp({ PUBLIC_URL: 'https://api.example.com' }))
      .get('/login')
      .expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=/);
    expect(res.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('are only nosniff on JSON API answers: under 400 bytes of headers in all', async () => {
    const res = await request(testApp({ PUBLIC_URL: 'https://api.example.com' }))
      .get('/users')
      .expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    for (const pageOnly of ['content-security-policy', 'strict-transport-security', 'x-frame-options', 'cross-origin-opener-policy']) {
      expect(res.headers[pageOnly]).toBeUndefined();
    }
    expect(headerBytes(res.headers)).toBeLessThan(400);
  });

  it("are under 400 bytes on the OAuth endpoints' JSON too: token, introspection, userinfo, discovery, JWK Set", async () => {
    const app = testApp({ PUBLIC_URL: 'https://api.example.com' });
    const { client, tokens } = await passwordGrant(app, { scope: 'openid' });
    const answers = [
      await request(app)
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: 'password', ...clientSecretPost(client), username: 'x@example.com', password: 'wrong-password' }),
      await request(app)
        .post('/oauth/introspect')
        .type('form')
        .send({ token: tokens.access_token, ...clientSecretPost(client) })
        .expect(200),
      await request(app).get('/oauth/userinfo').set('Authorization', `Bearer ${tokens.access_token}`).expect(200),
      await request(app).get('/.well-known/openid-configuration').expect(200),
      await request(app).get('/oauth/jwks').expect(200),
    ];
    for (const res of answers) {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(headerBytes(res.headers)).toBeLessThan(400);
    }
  });

  it('give each page one policy: scripts of this server only on the pages with a passkey button, each directive once', async () => {
    const app = testApp();
    const directives = (policy: string) => policy.split(';').map((directive) => directive.trim().split(/\s+/));
    const named = (policy: string, name: string) => directives(policy).filter(([directive]) => directive === name);
    for (const path of ['/login', '/signup', '/forgot-password']) {
      const policy = String((await request(app).get(path).expect(200)).headers['content-security-policy']);
      const names = directives(policy).map(([directive]) => directive);
      expect(names).toEqual([...new Set(names)]);
      const scripts = path === '/login' ? "'self'" : "'none'";
      expect(named(policy, 'script-src')).toEqual([['script-src', scripts]]);
      expect(named(policy, 'connect-src')).toEqual([['connect-src', scripts]]);
    }
  });

  it('keep the API reference page its own policy', async () => {
    const res = await request(testApp()).get('/docs').expect(200);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it("are only nosniff on the weather routes' text and JSON, which no browser renders as a page", async () => {
    const app = testApp({ PUBLIC_URL: 'https://api.example.com', OPENWEATHERMAP_API_KEY: '', WUNDERGROUND_API_KEY: '' });
    for (const [path, status] of [
      ['/hello', 200],
      ['/weather/Oslo', 500],
    ] as const) {
      const res = await request(app).get(path).expect(status);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBeUndefined();
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('leave out HSTS and upgrade-insecure-requests when the public URL is http', async () => {
    const res = await request(testApp({ PUBLIC_URL: 'http://dev.test:3000' }))
      .get('/login')
      .expect(200);
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('give the pages a CSP that allows their one stylesheet, frames nothing, and leaves form-action open', async () => {
    const res = await request(testApp()).get('/login').expect(200);
    const csp = res.headers['content-security-policy'];
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.text)![1];
    const hash = createHash('sha256').update(style).digest('base64');
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('form-action');
    expect(csp).not.toContain('unsafe-inline');
  });
});

describe('CORS', () => {
  it('is off by default', async () => {
    const res = await request(testApp()).get('/users').set('Origin', 'https://app.example.com').expect(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows only the configured origins', async () => {
    const app = testApp({ CORS_ORIGINS: 'https://app.example.com,https://admin.example.com' });
    const allowed = await request(app).get('/users').set('Origin', 'https://admin.example.com').expect(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://admin.example.com');
    // A browser client can read the request id to quote it in a support request.
    expect(allowed.headers['access-control-expose-headers']).toBe('X-Request-Id');
    const other = await request(app).get('/users').set('Origin', 'https://evil.example.com').expect(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await request(app)
      .options('/users')
      .set('Origin', 'https://app.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .expect(204);
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
  });
});

describe('trust proxy', () => {
  it('reads the client protocol from X-Forwarded-Proto only when configured, for Secure cookies', async () => {
    const production = { NODE_ENV: 'production' };
    const untrusted = await request(testApp(production)).get('/login').set('X-Forwarded-Proto', 'https').expect(200);
    expect(untrusted.headers['set-cookie']).toBeUndefined();
    const trusted = await request(testApp({ ...production, TRUST_PROXY: '1' }))
      .get('/login')
      .set('X-Forwarded-Proto', 'https')
      .expect(200);
    expect(trusted.headers['set-cookie'][0]).toMatch(/; Secure/);
  });
});

describe('health', () => {
  it('GET /healthz answers 200 while the process runs', async () => {
    const res = await request(testApp()).get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database answers', async () => {
    const res = await request(testApp()).get('/readyz').expect(200);
    expect(res.body).toEqual({ status: 'ready' });
  });
});

describe('GET /', () => {
  it('is a landing page linking to sign-in, the API reference, the OpenID Connect metadata and health', async () => {
    const res = await request(testApp())
      .get('/')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    for (const href of ['/login', '/docs', '/openapi.json', '/.well-known/openid-configuration', '/healthz']) {
      expect(res.text).toContain(`<a href="${href}">`);
    }
  });

  it('links to the demo callback page outside production only, where that page is served', async () => {
    expect((await request(testApp()).get('/').expect(200)).text).toContain('<a href="/oauth/callback-debug">');
    const production = testApp({ NODE_ENV: 'production', SIGNING_KEYS_SECRET: 'p'.repeat(32) });
    expect((await request(production).get('/').expect(200)).text).not.toContain('callback-debug');
  });
});
