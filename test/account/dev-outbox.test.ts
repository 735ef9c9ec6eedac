// Without SMTP_URL: outside production mail goes to the development outbox (/dev/mail and a log line
// with the link), so the flows work on a fresh clone; in production nothing is sent, the reset page
// says so, and /dev/* does not exist.
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createApp } from '../../src/app';
import { eventually } from '../helpers/polling';
import { mailerOf, testApp, testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { capturingLogger } from '../helpers/logs';
import { pathOf, postForm, signUpAgent, tokenOf } from '../helpers/account-pages';

useTestDatabase();

const fresh = () => `outbox-${randomBytes(5).toString('hex')}@example.com`;

describe('the development outbox', () => {
  it('keeps the verification mail, shows it at /dev/mail with its link, and logs where, never the link', async () => {
    const { logger, lines } = capturingLogger('info');
    const app = createApp({ config: testConfig({ PUBLIC_URL: 'http://dev.example.test', LOG_LEVEL: 'info' }), logger });
    const email = fresh();
    await signUpAgent(app, { email, password: 'secret1' });
    const outbox = await request(app).get('/dev/mail').expect(200);
    expect(outbox.headers['cache-control']).toBe('no-store');
    expect(outbox.text).toContain('Confirm your email address');
    expect(outbox.text).toContain(`To ${email}`);
    const link = /<a href="(http:\/\/dev\.example\.test\/verify-email\?token=[^"]+)">/.exec(outbox.text)?.[1];
    expect(link).toBeDefined();
    const logged = lines.find((line) => line.includes('mail kept in the development outbox'));
    expect(JSON.parse(logged!)).toMatchObject({ outbox: 'http://dev.example.test/dev/mail' });
    expect(lines.join('\n')).not.toContain(tokenOf(link));
    await request(app).get(pathOf(link)).expect(200);
  });

  it('answers this machine only: a client another address names through a trusted proxy gets 404', async () => {
    const app = testApp({ TRUST_PROXY: 'loopback' });
    await request(app).get('/dev/mail').expect(200);
    await request(app).get('/dev/mail').set('X-Forwarded-For', '203.0.113.7').expect(404);
    await request(app).get('/dev/mail').set('X-Forwarded-For', '127.0.0.1').expect(200);
  });

  it('keeps only the newest 50 messages', async () => {
    const app = testApp();
    const user = await createUser();
    for (let i = 0; i < 52; i++) await postForm(request.agent(app), '/forgot-password', '/forgot-password', { email: user.email });
    // Reset mails are made after the answer: wait until the 52nd is in (messages are numbered).
    const newest = () => mailerOf(app).outbox()?.[0]?.id ?? 0;
    await eventually('the 52nd reset mail', () => newest() >= 52);
    const outbox = await request(app).get('/dev/mail').expect(200);
    expect(outbox.text.match(/<article>/g)).toHaveLength(50);
  });
});

describe('production without SMTP_URL', () => {
  const production = () =>
    testApp({
      NODE_ENV: 'production',
      PUBLIC_URL: 'http://127.0.0.1',
      USERS_API_AUTH: 'jwt',
      OPENWEATHERMAP_API_KEY: 'k',
      WUNDERGROUND_API_KEY: 'k',
    });

  it('has no /dev/mail and no /dev/ page at all', async () => {
    const app = production();
    await request(app).get('/dev/mail').expect(404);
    await request(app).get('/dev/').expect(404);
  });

  it('says a password cannot be reset, and still signs people up (without a verification mail)', async () => {
    const app = production();
    const page = await request(app).get('/forgot-password').expect(200);
    expect(page.text).toContain('Password reset unavailable');
    expect(page.text).not.toContain('Send link');
    const agent = request.agent(app);
    const signUp = await agent.get('/signup').expect(200);
    expect(signUp.text).toContain('Sign up');
  });
});
