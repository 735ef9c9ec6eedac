import request from 'supertest';
import { createApp } from '../../src/app';
import { redactUrl } from '../../src/common/logger';
import { testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { capturingLogger } from '../helpers/logs';

useTestDatabase();

function capturingApp(overrides: Record<string, string> = {}) {
  const { logger, lines } = capturingLogger();
  return { app: createApp({ config: testConfig({ LOG_LEVEL: 'trace', ...overrides }), logger }), lines };
}

const entries = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('makes one when the caller sends none, returns it, and puts it on the access line', async () => {
    const { app, lines } = capturingApp();
    const res = await request(app).get('/users').set('User-Agent', 'id-test/1.0').expect(200);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(entries(lines).find((entry) => entry.msg === 'request completed')).toMatchObject({
      reqId: res.headers['x-request-id'],
      req: { method: 'GET', url: '/users', remoteAddress: expect.stringMatching(/127\.0\.0\.1$/), userAgent: 'id-test/1.0' },
      res: { statusCode: 200 },
    });
  });

  it("keeps a caller's usable X-Request-Id and replaces one that is too long or carries odd characters", async () => {
    const { app } = capturingApp();
    const kept = await request(app).get('/hello').set('X-Request-Id', 'edge-7f3a:trace/42').expect(200);
    expect(kept.headers['x-request-id']).toBe('edge-7f3a:trace/42');
    for (const offered of ['x'.repeat(129), 'two words', '<script>', 'tab\there']) {
      const replaced = await request(app).get('/hello').set('X-Request-Id', offered).expect(200);
      expect(replaced.headers['x-request-id']).toMatch(UUID);
    }
  });

  it('returns one on the probes too, which are not logged: a load balancer keeps its trace', async () => {
    const { app, lines } = capturingApp();
    for (const probe of ['/healthz', '/readyz']) {
      const kept = await request(app).get(probe).set('X-Request-Id', 'lb-probe-1').expect(200);
      expect(kept.headers['x-request-id']).toBe('lb-probe-1');
      expect((await request(app).get(probe).expect(200)).headers['x-request-id']).toMatch(UUID);
    }
    expect(entries(lines).filter((entry) => entry.msg === 'request completed')).toEqual([]);
  });

  it("puts the request's id on every line logged while handling it, an error line included", async () => {
    const { app, lines } = capturingApp({ OPENWEATHERMAP_API_KEY: '', WUNDERGROUND_API_KEY: '' });
    await request(app).get('/weather/Oslo').set('X-Request-Id', 'weather-req-1').expect(500);
    const logged = entries(lines).filter((entry) => entry.reqId === 'weather-req-1');
    expect(logged.map((entry) => entry.msg)).toEqual(['request failed', 'request failed']);
    expect(logged[0]).toMatchObject({ level: 50, error: expect.stringMatching(/^weather provider \w+ has no API key/) });
    expect(logged[1]).toMatchObject({ res: { statusCode: 500 } });
  });

  it('logs the client address behind a trusted proxy from X-Forwarded-For, and ignores the header otherwise', async () => {
    const behindProxy = capturingApp({ TRUST_PROXY: 'loopback' });
    await request(behindProxy.app).get('/hello').set('X-Forwarded-For', '203.0.113.9').expect(200);
    expect(entries(behindProxy.lines).at(-1)).toMatchObject({ req: { remoteAddress: '203.0.113.9' } });
    const direct = capturingApp();
    await request(direct.app).get('/hello').set('X-Forwarded-For', '203.0.113.9').expect(200);
    expect(entries(direct.lines).at(-1)).toMatchObject({ req: { remoteAddress: expect.stringMatching(/127\.0\.0\.1$/) } });
  });

  it('bounds the logged user agent', async () => {
    const { app, lines } = capturingApp();
    await request(app).get('/hello').set('User-Agent', 'a'.repeat(5000)).expect(200);
    expect((entries(lines).at(-1)?.req as { userAgent: string }).userAgent).toHaveLength(256);
  });
});

describe('request logging', () => {
  it('never writes passwords, tokens, Authorization headers or secret query parameters', async () => {
    const { app, lines } = capturingApp();
    const user = await createUser();
    const login = await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
    await request(app)
      .post('/auth/refresh-token')
      .set('Authorization', `Bearer ${login.body.accessToken}`)
      .set('Cookie', 'sid=session-cookie-value')
      .send({ refreshToken: login.body.refreshToken })
      .expect(201);
    await request(app).post('/auth').send({ email: user.email, password: 'wrong-password-value' }).expect(400);
    await request(app).get('/users?client_secret=query-secret-value&code=query-code-value&limit=5').expect(200);

    const log = lines.join('');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const secret of [
      user.password,
      'wrong-password-value',
      login.body.accessToken,
      login.body.refreshToken,
      'session-cookie-value',
      'query-secret-value',
      'query-code-value',
    ]) {
      expect(log).not.toContain(secret);
    }
    expect(log).toContain('/users?client_secret=[redacted]&code=[redacted]&limit=5');
  });
});

describe('redactUrl', () => {
  it('masks credential parameters case-insensitively and keeps the rest', () => {
    expect(redactUrl('/v1/oauth/token?grant_type=refresh_token&Refresh_Token=abc&client_id=c1&APPID=k')).toBe(
      '/v1/oauth/token?grant_type=refresh_token&Refresh_Token=[redacted]&client_id=c1&APPID=[redacted]',
    );
    expect(redactUrl('/users')).toBe('/users');
  });

  it('masks the OpenID Connect and device flow values that identify a person or a grant', () => {
    expect(redactUrl('/oauth/end-session?id_token_hint=eyJ.x.y&state=s&client_id=c1')).toBe(
      '/oauth/end-session?id_token_hint=[redacted]&state=[redacted]&client_id=c1',
    );
    expect(redactUrl('/device?user_code=BCDF-GHJK')).toBe('/device?user_code=[redacted]');
    expect(redactUrl('/oauth/authorize?login_hint=ann%40example.com&client_id=c1')).toBe(
      '/oauth/authorize?login_hint=[redacted]&client_id=c1',
    );
  });

  it("masks them inside a parameter that is itself a URL, such as the sign-in page's return_to", () => {
    const returnTo = `/oauth/authorize?${new URLSearchParams({ client_id: 'c1', state: 'secret-state', login_hint: 'ann@example.com' }).toString()}`;
    const logged = redactUrl(`/login?${new URLSearchParams({ return_to: returnTo }).toString()}`);
    expect(logged).not.toContain('secret-state');
    expect(logged).not.toContain('ann');
    expect(decodeURIComponent(logged)).toBe('/login?return_to=/oauth/authorize?client_id=c1&state=[redacted]&login_hint=[redacted]');
    const device = redactUrl(`/login?return_to=${encodeURIComponent('/device?user_code=BCDF-GHJK')}`);
    expect(device).not.toContain('BCDF');
  });
});
