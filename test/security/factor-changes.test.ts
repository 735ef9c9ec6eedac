// Adding a second factor is a change of who can sign in (issue 36, finding 2): a session that gave
// only a password may not add a passkey to an account whose owner has a second factor, and a session
// without a recent sign-in may not add one at all; every factor added or removed is mailed to the
// owner; a reset password may remove the factors added lately. Time moves on the server's clock.
import request from 'supertest';
import { PasskeyModel } from '../../src/factors/passkeys.model';
import { TotpModel } from '../../src/factors/totp.model';
import { UserModel } from '../../src/users/users.model';
import { mailerOf, testApp } from '../helpers/app';
import { pathOf, tokenOf, postForm } from '../helpers/account-pages';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp, passwordStep, storedPasskey, totpCode, type Agent } from '../helpers/factors';
import { csrfFrom, signedInAgent } from '../helpers/oauth';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../helpers/smtp-sink';

useTestDatabase();
const clock = movableClock();
let sink: SmtpSink;
let app: ReturnType<typeof testApp>;
beforeAll(async () => {
  sink = await startSmtpSink();
  app = testApp({ SMTP_URL: sink.url, PUBLIC_URL: 'http://accounts.example.test' }, { clock });
});
afterAll(() => sink.close());

/** POST /account/passkeys/options as the account page's script sends it. */
async function passkeyOptions(agent: Agent) {
  const page = await agent.get('/account').expect(200);
  return agent.post('/account/passkeys/options').send({ _csrf: csrfFrom(page.text) });
}

/** Asks for a reset link for the address and sets a new password through it, with the form's `fields`. */
async function resetWith(user: { email: string }, fields: Record<string, string>) {
  const resets = (mails: ReceivedMail[]) => mails.filter((mail) => mail.subject === 'Reset your password');
  const before = resets(await sink.mailTo(user.email, 0)).length;
  await postForm(request.agent(app), '/forgot-password', '/forgot-password', { email: user.email });
  // The link is made after the answer: wait for its mail (bounded by the sink).
  let link: string | undefined;
  for (let count = 1; count <= 20 && !link; count++) {
    const found = resets(await sink.mailTo(user.email, count));
    if (found.length > before) link = found.at(-1)!.link;
  }
  const agent = request.agent(app);
  const form = await agent.get(pathOf(link)).expect(200);
  expect(form.text).toContain('Also remove the second factors added in the last 7 days');
  const res = await agent
    .post('/reset-password')
    .type('form')
    .send({ _csrf: csrfFrom(form.text), token: tokenOf(link), password: 'a-new-password', ...fields });
  return Object.assign(res, { agent });
}

describe('adding a factor', () => {
  it('asks a password-only session for the second factor the owner turned on elsewhere before it may add a passkey', async () => {
    const user = await createUser();
    const intruder = await signedInAgent(app, user);
    const owner = await signedInAgent(app, user);
    await enrolTotp(owner.agent);

    const refused = await passkeyOptions(intruder.agent);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'Confirm it is you before adding a passkey.', redirect: '/login/verify' });
    const page = await intruder.agent.get('/account').expect(200);
    expect((await intruder.agent.post('/account/passkeys').send({ _csrf: csrfFrom(page.text), response: {} })).status).toBe(403);
    // The step it is sent to asks for the factor it does not have.
    expect((await intruder.agent.get('/login/verify').expect(200)).text).toContain('Confirm it is you');
    // The owner's session, which just proved the app, may go on.
    expect((await passkeyOptions(owner.agent)).status).toBe(200);
  });

  it('sends a session whose sign-in is over 10 minutes old to sign in again first, and back', async () => {
    const user = await createUser();
    const { agent } = await signedInAgent(app, user);
    clock.move(11 * 60_000);
    try {
      const page = await agent.get('/account/totp').expect(302);
      expect(page.headers.location).toBe('/login?return_to=%2Faccount%2Ftotp&prompt=login');
      expect((await passkeyOptions(agent)).body.redirect).toBe('/login?return_to=%2Faccount&prompt=login');
      expect(await TotpModel.findById(user.id).lean()).toBeNull();
      // Signed in again, the page is there.
      const login = await agent.get(page.headers.location).expect(200);
      const back = await agent
        .post('/login')
        .type('form')
        .send({ _csrf: csrfFrom(login.text), email: user.email, password: user.password, return_to: '/account/totp' })
        .expect(303);
      expect(back.headers.location).toBe('/account/totp');
      await agent.get('/account/totp').expect(200);
    } finally {
      clock.move(-11 * 60_000);
    }
  });
});

describe('the owner hears of every factor added or removed', () => {
  it('mails the address when the app is turned on and off', async () => {
    const user = await createUser();
    const { agent } = await signedInAgent(app, user);
    await enrolTotp(agent);
    const [added] = await sink.mailTo(user.email, 1);
    expect(added.subject).toBe('A second factor was added to your account');
    expect(added.text).toContain('authenticator app');
    expect(added.text).toContain('remove the second factors added in the last 7 days');
    const page = await agent.get('/account').expect(200);
    await agent
      .post('/account/totp/remove')
      .type('form')
      .send({ _csrf: csrfFrom(page.text) })
      .expect(303);
    const mails = await sink.mailTo(user.email, 2);
    expect(mails.map((mail) => mail.subject)).toEqual([
      'A second factor was added to your account',
      'A second factor was removed from your account',
    ]);
  });
});

describe('a reset password and the factors added lately', () => {
  /** An account whose owner verified the address (factors added before that are handled apart). */
  const verifiedUser = async () => {
    const user = await createUser();
    await UserModel.updateOne({ _id: user.id }, { $set: { emailVerified: true } });
    return user;
  };

  it('removes the app and passkeys added in the last 7 days when asked, and signs nobody in: a mailbox is not a second factor', async () => {
    const user = await verifiedUser();
    await enrolTotp((await signedInAgent(app, user)).agent);
    await storedPasskey(user.id, 'Theirs');
    const done = await resetWith(user, { remove_recent_factors: '1' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Password set');
    expect(done.text).toContain('Removed, as you asked: authenticator app, 1 passkey');
    expect(([] as string[]).concat(done.headers['set-cookie'] ?? []).some((cookie) => cookie.startsWith('sid='))).toBe(false);
    await done.agent.get('/account').expect(302);
    // Signing in with the new password is what it takes, and with no factor left that is all.
    const { res } = await passwordStep(app, { email: user.email, password: 'a-new-password' });
    expect(res.headers.location).toBe('/home');
    expect(await TotpModel.findById(user.id).lean()).toBeNull();
    expect(await PasskeyModel.countDocuments({ userId: user.id })).toBe(0);
    await mailerOf(app).drained(10_000);
    const removed = sink.received.filter((mail) => mail.to.includes(user.email) && mail.subject.includes('removed'));
    expect(removed.map((mail) => mail.text.includes('authenticator app') || mail.text.includes('1 passkey'))).toEqual([true, true]);
  });

  it('asks for the older factor left after removing a recent one, never signing in by the mailbox', async () => {
    const user = await verifiedUser();
    await enrolTotp((await signedInAgent(app, user)).agent);
    await TotpModel.updateOne({ _id: user.id }, { $set: { confirmedAt: new Date(Date.now() - 8 * 24 * 3600_000) } });
    await storedPasskey(user.id, 'Recent');
    const done = await resetWith(user, { remove_recent_factors: '1' });
    expect(done.status).toBe(200);
    await done.agent.get('/account').expect(302);
    expect(await PasskeyModel.countDocuments({ userId: user.id })).toBe(0);
    const { res } = await passwordStep(app, { email: user.email, password: 'a-new-password' });
    expect(res.headers.location).toBe('/login/verify');
  });

  it('keeps factors older than 7 days, and all of them when not asked', async () => {
    const older = await verifiedUser();
    await enrolTotp((await signedInAgent(app, older)).agent);
    await TotpModel.updateOne({ _id: older.id }, { $set: { confirmedAt: new Date(Date.now() - 8 * 24 * 3600_000) } });
    expect((await resetWith(older, { remove_recent_factors: '1' })).headers.location).toBe('/login/verify');
    expect(await TotpModel.findById(older.id).lean()).not.toBeNull();

    const kept = await verifiedUser();
    await enrolTotp((await signedInAgent(app, kept)).agent);
    expect((await resetWith(kept, {})).headers.location).toBe('/login/verify');
    expect(await TotpModel.findById(kept.id).lean()).not.toBeNull();
  });
});

describe('an address squatted before its owner verified it (issue 36, finding 7)', () => {
  it('gives the mailbox’s owner the account without the squatter’s factors, verified, through a reset link', async () => {
    const email = `squatted-${Date.now()}@example.com`;
    await request(app).post('/users').send({ email, password: 'squatter-password' }).expect(201);
    const squatter = await signedInAgent(app, { email, password: 'squatter-password' });
    await enrolTotp(squatter.agent);
    // The owner of the mailbox asks for a reset and sets a password, without ticking anything.
    const done = await resetWith({ email }, {});
    expect(done.headers.location).toBe('/account?done=reset-factors');
    const user = await UserModel.findOne({ email }).lean();
    expect(user?.emailVerified).toBe(true);
    expect(await TotpModel.findById(user!._id).lean()).toBeNull();
    // The squatter's session ended with the reset.
    expect((await squatter.agent.get('/account')).status).toBe(302);
  });
});

describe('a step-up', () => {
  it('gives the session a new id: a copy of the password-only session’s cookie gains nothing from it', async () => {
    const user = await createUser();
    const agent = request.agent(app);
    const login = await agent.get('/login').expect(200);
    const signedIn = await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(login.text), email: user.email, password: user.password })
      .expect(303);
    const copied = sessionCookieOf(signedIn);
    expect(copied).toBeDefined();
    // The app turned on in another browser: this session gave the password alone.
    const { recoveryCodes } = await enrolTotp((await signedInAgent(app, user)).agent);
    const asked = await postForm(agent, '/account', '/account/recovery-codes', {});
    expect(asked.status).toBe(303);
    expect(asked.headers.location).toBe('/login/verify');
    const form = await agent.get('/login/verify').expect(200);
    const confirmed = await agent
      .post('/login/verify')
      .type('form')
      .send({ _csrf: csrfFrom(form.text), code: recoveryCodes[0] })
      .expect(303);
    expect(confirmed.headers.location).toBe('/account/recovery-codes/new');
    expect(sessionCookieOf(confirmed)).not.toBe(copied);
    // The copy is signed out; the browser that stepped up is not.
    const withCopy = await request(app).get('/account').set('Cookie', `sid=${copied}`);
    expect(withCopy.status).toBe(302);
    expect(withCopy.headers.location).toMatch(/^\/login/);
    await agent.get('/account').expect(200);
  });
});

describe('the pending sign-in', () => {
  it('is replaced by the signed-in session: a copy of its cookie gains nothing from the second factor', async () => {
    const user = await createUser();
    const { recoveryCodes } = await enrolTotp((await signedInAgent(app, user)).agent);
    const { agent, res } = await passwordStep(app, user);
    expect(res.headers.location).toBe('/login/verify');
    const pendingCopy = sessionCookieOf(res)!;
    const form = await agent.get('/login/verify').expect(200);
    const done = await agent
      .post('/login/verify')
      .type('form')
      .send({ _csrf: csrfFrom(form.text), code: recoveryCodes[0] })
      .expect(303);
    expect(sessionCookieOf(done)).not.toBe(pendingCopy);
    await agent.get('/home').expect(200);
    // The copy is neither signed in nor still waiting for a factor.
    const copyHome = await request(app).get('/home').set('Cookie', `sid=${pendingCopy}`);
    expect(copyHome.status).toBe(302);
    const copyVerify = await request(app).get('/login/verify').set('Cookie', `sid=${pendingCopy}`);
    expect(copyVerify.status).toBe(302);
    expect(copyVerify.headers.location).toBe('/login');
  });
});

/** The `sid` cookie a response set. */
function sessionCookieOf(res: { headers: Record<string, unknown> }): string | undefined {
  const cookies = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  return cookies.map((cookie) => /^sid=([^;]+)/.exec(cookie)?.[1]).find(Boolean);
}

describe('guessing second factors (issue 36, finding 13)', () => {
  it('stops after 30 wrong codes a day for the account, even with the 15-minute budgets wide open, and mails the owner once', async () => {
    const limited = testApp(
      {
        SMTP_URL: sink.url,
        RATE_LIMITS: 'on',
        RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_ADDRESS: '1000',
        RATE_LIMIT_SIGN_IN_PER_ACCOUNT: '1000',
        RATE_LIMIT_SIGN_IN_PER_ADDRESS: '1000',
      },
      { clock },
    );
    const user = await createUser();
    const { key } = await enrolTotp((await signedInAgent(limited, user)).agent);
    const { agent } = await passwordStep(limited, user);
    const form = await agent.get('/login/verify').expect(200);
    const give = (code: string) =>
      agent
        .post('/login/verify')
        .type('form')
        .send({ _csrf: csrfFrom(form.text), code });
    const wrong = (i: number) => String(100_000 + i).padStart(6, '0');
    for (let i = 0; i < 30; i++) expect((await give(wrong(i))).status).toBe(401);
    expect((await give(wrong(30))).status).toBe(429);
    // Even the right code waits now.
    expect((await give(totpCode(key, clock.now() + 30_000))).status).toBe(429);
    await mailerOf(limited).drained(10_000);
    const alerts = sink.received.filter(
      (mail) => mail.to.includes(user.email) && mail.subject === 'Someone is trying to sign in to your account',
    );
    expect(alerts).toHaveLength(1);
  }, 60_000);
});
