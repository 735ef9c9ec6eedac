// /signup (POST /users's rules and messages), the verification mail through a real SMTP server on
// loopback, the single-use link, resending with its limit, and email_verified in userinfo.
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AccountLinkModel } from '../../src/account/account-links.model';
import { UserModel } from '../../src/users/users.model';
import { mailerOf, testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { pathOf, postForm, signUpAgent, tokenOf } from '../helpers/account-pages';
import { csrfFrom, registerClient, clientSecretPost } from '../helpers/oauth';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink';

useTestDatabase();
let sink: SmtpSink;
let app: ReturnType<typeof testApp>;

beforeAll(async () => {
  sink = await startSmtpSink();
  app = testApp({ SMTP_URL: sink.url, MAIL_FROM: 'Accounts <accounts@example.test>', PUBLIC_URL: 'http://accounts.example.test' });
});
afterAll(() => sink.close());

const fresh = () => `new-${randomBytes(5).toString('hex')}@example.com`;

describe('GET /signup', () => {
  it('shows email, password, firstName and lastName inputs, a Sign up button and a CSRF token, no-store', async () => {
    const res = await request(app)
      .get('/signup')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    for (const name of ['email', 'password', 'firstName', 'lastName']) expect(res.text).toContain(`name="${name}"`);
    expect(res.text).toMatch(/<button type="submit">Sign up<\/button>/);
    expect(csrfFrom(res.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('is linked from the sign-in page, with the forgotten-password page', async () => {
    const login = await request(app).get('/login').expect(200);
    expect(login.text).toContain('href="/signup"');
    expect(login.text).toContain('href="/forgot-password"');
  });
});

describe('POST /signup', () => {
  it.each([
    [{ email: 'not-an-email', password: 'secret1' }],
    [{ email: fresh(), password: 'abc' }],
    [{ email: `а${fresh()}`, password: 'secret1' }],
    [{ email: fresh(), password: 'secret1', firstName: 'x'.repeat(101) }],
  ])('refuses %j with the messages POST /users gives, and creates nothing', async (fields) => {
    const api = await request(app).post('/users').send(fields).expect(400);
    const messages = (api.body as { errors: ({ msg: string } | string)[] }).errors.map((error) =>
      typeof error === 'string' ? error : error.msg,
    );
    expect(messages.length).toBeGreaterThan(0);
    const page = await postForm(request.agent(app), '/signup', '/signup', { firstName: '', lastName: '', ...fields });
    expect(page.status).toBe(400);
    for (const message of messages) expect(page.text).toContain(message.replace(/&/g, '&amp;'));
    expect(await UserModel.countDocuments({ email: fields.email })).toBe(0);
  });

  it("refuses a taken email with POST /users's message", async () => {
    const email = fresh();
    await request(app).post('/users').send({ email, password: 'secret1' }).expect(201);
    const page = await postForm(request.agent(app), '/signup', '/signup', { email, password: 'secret2', firstName: '', lastName: '' });
    expect(page.status).toBe(400);
    expect(page.text).toContain('User email already exists');
  });

  it('refuses a form without the CSRF token (403) and creates nothing', async () => {
    const email = fresh();
    await request(app).post('/signup').type('form').send({ email, password: 'secret1' }).expect(403);
    expect(await UserModel.countDocuments({ email })).toBe(0);
  });

  it('creates the account, signs the person in and mails a verification link that works once', async () => {
    const email = fresh();
    const agent = await signUpAgent(app, { email, password: 'secret1', firstName: 'Ada', lastName: 'Byron' });
    const account = await agent.get('/account?done=signed-up').expect(200);
    expect(account.text).toContain('Welcome');
    expect(account.text).toContain('not verified yet');

    const [mail] = await sink.mailTo(email);
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.from).toBe('accounts@example.test');
    expect(mail.text).toContain('Hello Ada Byron');
    expect(mail.link).toMatch(/^http:\/\/accounts\.example\.test\/verify-email\?token=[A-Za-z0-9_-]{43}$/);
    // Only the hash of the token is stored.
    const stored = await AccountLinkModel.find({ email }).lean();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(tokenOf(mail.link));

    const user = await UserModel.findOne({ email }).lean();
    expect(user?.emailVerified).toBeUndefined();
    const verified = await request(app).get(pathOf(mail.link)).expect(200);
    expect(verified.text).toContain('Email verified');
    expect((await UserModel.findOne({ email }).lean())?.emailVerified).toBe(true);
    expect((await agent.get('/account').expect(200)).text).toContain('(verified)');

    const again = await request(app).get(pathOf(mail.link)).expect(400);
    expect(again.text).toContain('Link not valid');
  });

  it('counts page sign-ups and POST /users against the same per-address limit', async () => {
    const limited = testApp({ SMTP_URL: sink.url, RATE_LIMIT_SIGN_UP_PER_ADDRESS: '2', RATE_LIMITS: 'on' });
    await request(limited).post('/users').send({ email: fresh(), password: 'secret1' }).expect(201);
    await postForm(request.agent(limited), '/signup', '/signup', { email: fresh(), password: 'secret1', firstName: '', lastName: '' }).then(
      (res) => expect(res.status).toBe(303),
    );
    const refused = await postForm(request.agent(limited), '/signup', '/signup', {
      email: fresh(),
      password: 'secret1',
      firstName: '',
      lastName: '',
    });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.text).toContain('Too many attempts');
  });
});

describe('GET /verify-email', () => {
  it('says a tampered, missing or unknown token is not valid, and changes nothing', async () => {
    for (const query of ['', '?token=', '?token=abc', `?token=${'A'.repeat(43)}`, '?token=x&token=y']) {
      const res = await request(app).get(`/verify-email${query}`).expect(400);
      expect(res.text).toContain('Link not valid');
    }
  });

  it('says an expired link has expired, and leaves the email unverified', async () => {
    const email = fresh();
    await signUpAgent(app, { email, password: 'secret1' });
    const [mail] = await sink.mailTo(email);
    await AccountLinkModel.updateOne({ email }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await request(app).get(pathOf(mail.link)).expect(400)).text).toContain('Link expired');
    expect((await UserModel.findOne({ email }).lean())?.emailVerified).toBeUndefined();
  });

  it('verifies once when the same link is opened 100 times at once, on two instances', async () => {
    const email = fresh();
    await signUpAgent(app, { email, password: 'secret1' });
    const [mail] = await sink.mailTo(email);
    const second = testApp({ SMTP_URL: sink.url });
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => request(i % 2 ? second : app).get(pathOf(mail.link))));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    expect(answers.filter((res) => res.status === 400)).toHaveLength(99);
    expect((await UserModel.findOne({ email }).lean())?.__v).toBe(1);
  });
});

describe('POST /account/verify-email (resend)', () => {
  it('mails a new link, which makes the older one dead', async () => {
    const email = fresh();
    const agent = await signUpAgent(app, { email, password: 'secret1' });
    const [first] = await sink.mailTo(email);
    const resent = await postForm(agent, '/account', '/account/verify-email', {});
    expect(resent.status).toBe(303);
    expect(resent.headers.location).toBe('/account?done=verification');
    const mails = await sink.mailTo(email, 2);
    expect(tokenOf(mails[1].link)).not.toBe(tokenOf(first.link));
    expect((await request(app).get(pathOf(first.link)).expect(400)).text).toContain('Link not valid');
    await request(app).get(pathOf(mails[1].link)).expect(200);
  });

  it('is limited per account (3 in 15 minutes), and a refused request mails nothing', async () => {
    const limited = testApp({ SMTP_URL: sink.url, RATE_LIMITS: 'on', RATE_LIMIT_SIGN_UP_PER_ADDRESS: '1000' });
    const email = fresh();
    const agent = await signUpAgent(limited, { email, password: 'secret1' });
    for (let i = 0; i < 3; i++) expect((await postForm(agent, '/account', '/account/verify-email', {})).status).toBe(303);
    const refused = await postForm(agent, '/account', '/account/verify-email', {});
    expect(refused.status).toBe(429);
    await sink.mailTo(email, 4);
    // Nothing more is queued: the refused request sent nothing.
    await mailerOf(limited).drained(10_000);
    expect(await sink.mailTo(email)).toHaveLength(4);
  });

  it('sends a signed-out browser to sign in', async () => {
    const res = await postForm(request.agent(app), '/login', '/account/verify-email', {});
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/login?return_to=%2Faccount');
  });
});

describe('email_verified', () => {
  it('is false in userinfo until the link is followed, then true', async () => {
    const email = fresh();
    await signUpAgent(app, { email, password: 'secret1' });
    const client = await registerClient({ grants: ['password'] });
    const token = async () =>
      (
        await request(app)
          .post('/oauth/token')
          .type('form')
          .send({ grant_type: 'password', ...clientSecretPost(client), username: email, password: 'secret1', scope: 'openid email' })
          .expect(200)
      ).body as { access_token: string };
    const before = await token();
    const userinfo = (accessToken: string) => request(app).get('/oauth/userinfo').set('Authorization', `Bearer ${accessToken}`).expect(200);
    expect((await userinfo(before.access_token)).body).toMatchObject({ email, email_verified: false });
    const [mail] = await sink.mailTo(email);
    await request(app).get(pathOf(mail.link)).expect(200);
    const after = await token();
    expect((await userinfo(after.access_token)).body).toMatchObject({ email, email_verified: true });
  });
});
