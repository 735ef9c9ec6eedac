import request from 'supertest';
import { createApp } from '../../src/app';
import { redactUrl } from '../../src/common/logger';
import { testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { capturingLogger } from '../helpers/logs';

useTestDatabase();

function capturingApp() {
  const { logger, lines } = capturingLogger();
  return { app: createApp({ config: testConfig({ LOG_LEVEL: 'trace' }), logger }), lines };
}

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
});
