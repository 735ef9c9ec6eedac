// /forgot-password and the mailed reset link: the same answer for every address, a single-use link
// that lives 30 minutes and dies with a password change, a new password that ends every earlier
// session and token, the limits, and nothing secret in the logs.
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createApp } from '../../src/app';
import { AccountLinkModel } from '../../src/account/account-links.model';
import * as accountLinks from '../../src/account/account-links.service';
import * as usersService from '../../src/users/users.service';
import { mailerOf, testApp, testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { capturingLogger } from '../helpers/logs';
import { pathOf, postForm, tokenOf } from '../helpers/account-pages';
import { csrfFrom, signedInAgent } from '../helpers/oauth';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink';

useTestDatabase();
let sink: SmtpSink;
let app: ReturnType<typeof testApp>;

beforeAll(async () => {
  sink = await startSmtpSink();
  app = testApp({ SMTP_URL: sink.url, PUBLIC_URL: 'http://accounts.example.test' });
});
afterAll(() => sink.close());

const forgot = (target: Parameters<typeof request.agent>[0], email: string) =>
  postForm(request.agent(target), '/forgot-password', '/forgot-password', { email });

/** Asks for a reset link for the user and returns the mailed link's path. */
async function resetLink(user: { email: string }, count = 1): Promise<string> {
  expect((await forgot(app, user.email)).status).toBe(200);
  const mails = await sink.mailTo(user.email, count);
  expect(mails).toHaveLength(count);
  return pathOf(mails[count - 1].link);
}

async function setPassword(agent: ReturnType<typeof request.agent>, linkPath: string, password: string) {
  const form = await agent.get(linkPath).expect(200);
  return agent
    .post('/reset-password')
    .type('form')
    .send({ _csrf: csrfFrom(form.text), token: tokenOf(`http://x${linkPath}`), password });
}

const login = (email: string, password: string) => request(app).post('/auth').send({ email, password });

describe('GET /forgot-password', () => {
  it('shows an email input and a Send link button', async () => {
    const res = await request(app).get('/forgot-password').expect(200);
    expect(res.text).toContain('name="email"');
    expect(res.text).toMatch(/<button type="submit">Send link<\/button>/);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('POST /forgot-password', () => {
  it('answers a known and an unknown address with the same page, and mails only the known one', async () => {
    const user = await createUser();
    const unknown = `nobody-${randomBytes(4).toString('hex')}@example.com`;
    const known = await forgot(app, user.email);
    const other = await forgot(app, unknown);
    expect(known.status).toBe(200);
    expect(other.status).toBe(200);
    const strip = (text: string) => text.replace(/name="_csrf" value="[^"]+"/, '');
    expect(strip(known.text)).toBe(strip(other.text));
    const [mail] = await sink.mailTo(user.email);
    expect(mail.subject).toBe('Reset your password');
    expect(mail.link).toMatch(/^http:\/\/accounts\.example\.test\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
    expect(mail.text).toContain('30 minutes');
    await mailerOf(app).drained(10_000);
    expect(sink.received.filter((m) => m.to.includes(unknown))).toHaveLength(0);
  });

  it('refuses an address the sign-up rules refuse (CR/LF, look-alikes) with 400, and mails nothing', async () => {
    for (const email of ['victim@example.com\r\nBcc: x@example.com', 'vісtim@example.com', 'not-an-email']) {
      const res = await forgot(app, email);
      expect(res.status).toBe(400);
    }
  });

  it('is limited per email (3 in 15 minutes) and per address, for known and unknown addresses alike', async () => {
    const limited = testApp({ SMTP_URL: sink.url, RATE_LIMITS: 'on' });
    const user = await createUser();
    const unknown = `nobody-${randomBytes(4).toString('hex')}@example.com`;
    for (const email of [user.email, unknown]) {
      for (let i = 0; i < 3; i++) expect((await forgot(limited, email)).status).toBe(200);
      const refused = await forgot(limited, email);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    }
    expect(await sink.mailTo(user.email, 3)).toHaveLength(3);
    const byAddress = testApp({ SMTP_URL: sink.url, RATE_LIMITS: 'on' });
    let last = 0;
    for (let i = 0; i < 11; i++) last = (await forgot(byAddress, `a${i}-${randomBytes(3).toString('hex')}@example.com`)).status;
    expect(last).toBe(429);
  });
});

describe('the reset link', () => {
  it('sets the new password, signs the person in, and ends every earlier session and token', async () => {
    const user = await createUser();
    const { agent: elsewhere } = await signedInAgent(app, user);
    const oldJwt = (await login(user.email, user.password).expect(201)).body as { accessToken: string };
    const link = await resetLink(user);

    const browser = request.agent(app);
    const res = await setPassword(browser, link, 'brand-new-pw');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/account?done=reset');
    expect((await browser.get('/account?done=reset').expect(200)).text).toContain('Your new password is set');

    await login(user.email, user.password).expect(400);
    await login(user.email, 'brand-new-pw').expect(201);
    expect((await elsewhere.get('/home')).status).toBe(302);
    // The access token from before the reset is refused like any invalid one (403, empty body).
    const auth = await request(app)
      .post('/auth/refresh-token')
      .set('Authorization', `Bearer ${oldJwt.accessToken}`)
      .send({ refreshToken: 'x' });
    expect(auth.status).toBe(403);
    expect(auth.text).toBe('');

    // Used: the same link again changes nothing.
    const again = await request(app).get(link).expect(400);
    expect(again.text).toContain('Link not valid');
    await login(user.email, 'brand-new-pw').expect(201);
  });

  it("keeps the link when the new password breaks the rule, with the rule's message", async () => {
    const user = await createUser();
    const link = await resetLink(user);
    const res = await setPassword(request.agent(app), link, 'abc');
    expect(res.status).toBe(400);
    expect(res.text).toContain('Must include password (5+ characters)');
    await login(user.email, user.password).expect(201);
    expect((await setPassword(request.agent(app), link, 'long-enough')).status).toBe(303);
  });

  it('expires after 30 minutes', async () => {
    const user = await createUser();
    const link = await resetLink(user);
    const stored = await AccountLinkModel.findOne({ email: user.email, purpose: 'reset-password' }).lean();
    expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).toBe(30 * 60_000);
    await AccountLinkModel.updateOne({ _id: stored!._id }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    expect((await request(app).get(link).expect(400)).text).toContain('Link expired');
    const form = await request.agent(app).get('/forgot-password');
    const post = await request(app)
      .post('/reset-password')
      .type('form')
      .set('Cookie', form.headers['set-cookie'] as unknown as string[])
      .send({ _csrf: csrfFrom(form.text), token: tokenOf(`http://x${link}`), password: 'whatever-1' });
    expect(post.status).toBe(400);
    await login(user.email, user.password).expect(201);
  });

  it('dies when the password changes some other way, and when a newer link is sent', async () => {
    const user = await createUser();
    const first = await resetLink(user);
    const second = await resetLink(user, 2);
    expect((await request(app).get(first).expect(400)).text).toContain('Link not valid');
    await request(app).get(second).expect(200);
    await request(app).patch(`/users/${user.id}`).send({ password: 'changed-by-api' }).expect(204);
    expect((await request(app).get(second).expect(400)).text).toContain('Link not valid');
    expect((await setPassword(request.agent(app), first, 'x-new-password').catch(() => ({ status: 400 }))).status).toBe(400);
  });

  it('sets the password once when the same form is posted 100 times at once, to two instances', async () => {
    const user = await createUser();
    const link = await resetLink(user);
    const second = testApp({ SMTP_URL: sink.url, PUBLIC_URL: 'http://accounts.example.test' });
    const form = await request(app).get(link).expect(200);
    const cookie = ([] as string[])
      .concat(form.headers['set-cookie'] ?? [])
      .map((value) => value.split(';')[0])
      .join('; ');
    const token = tokenOf(`http://x${link}`);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        request(i % 2 === 0 ? app : second)
          .post('/reset-password')
          .set('Cookie', cookie)
          .type('form')
          .send({ _csrf: csrfFrom(form.text), token, password: `racing-password-${i}` }),
      ),
    );
    const winners = answers.filter((res) => res.status === 303);
    expect(winners).toHaveLength(1);
    expect(answers.filter((res) => res.status === 400)).toHaveLength(99);
    const accepted = answers.indexOf(winners[0]);
    await login(user.email, `racing-password-${accepted}`).expect(201);
  });

  it('issues every one of 100 links asked for one person at once, the newest the only one alive', async () => {
    const user = (await usersService.findById((await createUser()).id))!;
    const issued = await Promise.allSettled(
      Array.from({ length: 100 }, () => accountLinks.issue('reset-password', { ...user, email: user.email! })),
    );
    expect(issued.filter((result) => result.status === 'rejected')).toEqual([]);
    const tokens = issued.map((result) => (result as PromiseFulfilledResult<string>).value);
    const alive = await Promise.all(tokens.map(async (token) => !('dead' in (await accountLinks.check('reset-password', token)))));
    expect(alive.filter(Boolean)).toHaveLength(1);
  });

  it('refuses a tampered token and a form without the CSRF token', async () => {
    const user = await createUser();
    const link = await resetLink(user);
    const token = tokenOf(`http://x${link}`);
    const tampered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect((await request(app).get(`/reset-password?token=${tampered}`).expect(400)).text).toContain('Link not valid');
    await request(app).post('/reset-password').type('form').send({ token, password: 'no-csrf-here' }).expect(403);
    await login(user.email, user.password).expect(201);
  });

  it('leaves no link token, password or mail body in the logs', async () => {
    const { logger, lines } = capturingLogger('trace');
    const logged = createApp({ config: testConfig({ SMTP_URL: sink.url, LOG_LEVEL: 'trace' }), logger });
    const user = await createUser();
    await forgot(logged, user.email);
    const [mail] = await sink.mailTo(user.email);
    const browser = request.agent(logged);
    const form = await browser.get(pathOf(mail.link)).expect(200);
    await browser
      .post('/reset-password')
      .type('form')
      .send({ _csrf: csrfFrom(form.text), token: tokenOf(mail.link), password: 'logged-password-1' })
      .expect(303);
    const all = lines.join('\n');
    expect(all).toContain('/reset-password');
    expect(all).not.toContain(tokenOf(mail.link));
    expect(all).not.toContain('logged-password-1');
    expect(all).not.toContain('choose a new password');
  });
});

describe('mail delivery', () => {
  it('retries a message the SMTP server refuses for a while, and the page never waits for it', async () => {
    const user = await createUser();
    sink.refuseNext(1);
    const started = Date.now();
    expect((await forgot(app, user.email)).status).toBe(200);
    const answeredIn = Date.now() - started;
    const [mail] = await sink.mailTo(user.email);
    expect(mail.subject).toBe('Reset your password');
    // The retry came after the 2 s pause; the answer did not wait for it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(answeredIn).toBeLessThan(Date.now() - started);
  });
});
