// An authenticator app (RFC 6238) as a second factor, through HTTP, codes computed with otpauth:
// enrolment from the account page, the second step after the password, each code once (also when
// sent 100 times at once to two instances), wrong codes counted by the sign-in budget, recovery
// codes, and the amr and acr the ID tokens then carry.
import type { Express } from 'express';
import request from 'supertest';
import { PasskeyModel } from '../../src/factors/passkeys.model';
import { TotpModel } from '../../src/factors/totp.model';
import * as totpDao from '../../src/factors/totp.dao';
import { seal } from '../../src/common/crypto';
import { HitModel } from '../../src/common/rate-limit.model';
import { testApp, testConfig } from '../helpers/app';
import { forgetFailuresOf } from '../../src/sign-in/sign-in.service';
import { postForm } from '../helpers/account-pages';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp, giveCode, passwordStep, storedPasskey, totpCode } from '../helpers/factors';
import { clientSecretPost, csrfFrom, REDIRECT_URI, registerClient, signedInAgent, unescapeHtml } from '../helpers/oauth';

useTestDatabase();
const clock = movableClock();
const app = testApp({}, { clock });
const NEXT_STEP = 30_000;

/** A person with the app on (enrolled in a session that then signed out), the app's key, and the moment whose code the enrolment gave. */
async function personWithApp() {
  const user = await createUser();
  const { agent } = await signedInAgent(app, user);
  const at = clock.now();
  const enrolled = await enrolTotp(agent, at);
  return { user, ...enrolled, at };
}

/**
 * One person's password in 100 browsers, half on each server, a few at a time (argon2's queue holds 4
 * per client address); then the same code from all 100 at once: the answers.
 */
async function codeFromHundredBrowsers(servers: [Express, Express], user: Parameters<typeof passwordStep>[1], code: string) {
  const browsers: Awaited<ReturnType<typeof passwordStep>>[] = [];
  for (let batch = 0; batch < 25; batch++) {
    browsers.push(...(await Promise.all([0, 1, 0, 1].map((i) => passwordStep(servers[i], user, request.agent(servers[i]))))));
  }
  expect(browsers.map(({ res }) => `${res.status} ${res.headers.location}`).filter((line) => line !== '303 /login/verify')).toEqual([]);
  const pages = await Promise.all(browsers.map(({ agent }) => agent.get('/login/verify').expect(200)));
  const answers = await Promise.all(
    browsers.map(({ agent }, i) =>
      agent
        .post('/login/verify')
        .type('form')
        .send({ _csrf: csrfFrom(pages[i].text), code }),
    ),
  );
  return { answers, agents: browsers.map(({ agent }) => agent) };
}

const claimsOf = (idToken: string) => JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

/** The code flow from a signed-in agent, following a step-up when it comes; the ID token's claims. */
async function idTokenFor(agent: ReturnType<typeof request.agent>, extra: Record<string, string>, key?: string) {
  const client = await registerClient();
  const query = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'openid', nonce: 'n-1', ...extra };
  let res = await agent.get('/oauth/authorize').query(query);
  if (res.status === 302 && res.headers.location.startsWith('/login/step-up')) {
    res = await agent.get(res.headers.location).expect(302);
    expect(res.headers.location).toBe('/login/verify');
    const verified = await giveCode(agent, totpCode(key!, clock.now() + NEXT_STEP)).then((r) => r);
    expect(verified.status).toBe(303);
    res = await agent.get(verified.headers.location);
  }
  if (res.status === 302) return { location: new URL(res.headers.location) };
  expect(res.status).toBe(200);
  const fields = Object.fromEntries(
    [...res.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], unescapeHtml(m[2])]),
  );
  const decided = await agent
    .post('/oauth/authorize')
    .type('form')
    .send({ ...fields, decision: 'approve' })
    .expect(302);
  const code = new URL(decided.headers.location).searchParams.get('code')!;
  const tokens = await request(app)
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...clientSecretPost(client) })
    .expect(200);
  return { claims: claimsOf((tokens.body as { id_token: string }).id_token) };
}

describe('enrolling an authenticator app', () => {
  it('shows a QR code and the key, turns on with a first right code, and shows ten recovery codes once', async () => {
    const user = await createUser();
    const { agent } = await signedInAgent(app, user);
    const page = await agent.get('/account/totp').expect(200);
    expect(page.text).toContain('<svg');
    expect(page.headers['cache-control']).toBe('no-store');
    const key = /<code>([A-Z2-7 ]+)<\/code>/.exec(page.text)![1].replace(/ /g, '');
    // Stored sealed: the key itself is nowhere in the record.
    expect(JSON.stringify(await TotpModel.findById(user.id).lean())).not.toContain(key);

    const wrong = await agent
      .post('/account/totp')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('That code is not right');
    expect((await TotpModel.findById(user.id).lean())?.confirmedAt).toBeUndefined();

    const done = await agent
      .post('/account/totp')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), code: totpCode(key) })
      .expect(200);
    expect([...done.text.matchAll(/<li><code>[a-z0-9]{5}-[a-z0-9]{5}<\/code><\/li>/g)]).toHaveLength(10);
    const account = (await agent.get('/account').expect(200)).text;
    expect(account).toContain('Turn off the authenticator app');
    expect(account).toContain('10 of 10 left');
    expect(account).toContain('Second factor added');
    // On already: the enrolment page leads back.
    expect((await agent.get('/account/totp')).status).toBe(302);
  });

  it('turns on the key the first code was checked against, or lets a new enrolment replace it, never both', async () => {
    // A waiting key that expires as its first code arrives: the code's confirmation and a new enrolment
    // (begin sees the key expired) at once, for 50 people. One of the two wins, and the record is the winner's.
    const people = await Promise.all(Array.from({ length: 50 }, () => createUser()));
    const shown = people.map(() => seal('FIRSTKEY', 'test', 'totp-secret'));
    expect(await Promise.all(people.map((user, i) => totpDao.replacePending(user.id, shown[i], new Date())))).toEqual(
      people.map(() => true),
    );
    const raced = await Promise.all(
      people.map(async (user, i) => {
        const replacement = seal('SECONDKEY', 'test', 'totp-secret');
        const [confirmed, replaced] = await Promise.all([
          totpDao.confirm(user.id, shown[i], new Date()),
          totpDao.replacePending(user.id, replacement, new Date()),
        ]);
        const stored = await TotpModel.findById(user.id).lean();
        const on = Boolean(stored?.confirmedAt);
        const iv = stored?.secret.iv;
        if (confirmed && !replaced && on && iv === shown[i].iv) return 'confirmed';
        if (replaced && !confirmed && !on && iv === replacement.iv) return 'replaced';
        return `confirmed ${confirmed}, replaced ${replaced}, stored ${iv === shown[i].iv ? 'first' : iv === replacement.iv ? 'second' : 'none'} key, ${on ? 'on' : 'off'}`;
      }),
    );
    expect(raced.filter((outcome) => outcome !== 'confirmed' && outcome !== 'replaced')).toEqual([]);
  });
});

describe('signing in with the app', () => {
  it('asks for the code after the password, and signs in only with a right one', async () => {
    const { user, key } = await personWithApp();
    const { agent, res } = await passwordStep(app, user);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/login/verify');
    // Not signed in yet.
    expect((await agent.get('/home')).status).toBe(302);
    const page = await agent.get('/login/verify').expect(200);
    expect(page.text).toContain('name="code"');
    expect(page.text).toMatch(/<button type="submit">Verify<\/button>/);

    const wrong = await giveCode(agent, '123456');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('That code is not right');
    const right = await giveCode(agent, totpCode(key, clock.now() + NEXT_STEP));
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe('/home');
    await agent.get('/home').expect(200);
    const { claims } = await idTokenFor(agent, {});
    expect(claims).toMatchObject({ acr: '2', amr: ['pwd', 'otp', 'mfa'] });
  });

  it('accepts a code once: again, or 100 times at once on two instances, it signs in one browser', async () => {
    const { user, key } = await personWithApp();
    const code = totpCode(key, clock.now() + NEXT_STEP);
    const second = testApp();
    const { answers } = await codeFromHundredBrowsers([app, second], user, code);
    expect(answers.filter((res) => res.status === 303).map((res) => res.headers.location)).toEqual(['/home']);
    expect(answers.filter((res) => res.status === 401)).toHaveLength(99);
  }, 60_000);

  it('counts wrong codes in the sign-in budget, like wrong passwords, and the password while its second factor is owed', async () => {
    const limited = testApp({ RATE_LIMITS: 'on', RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_ADDRESS: '3' });
    const { user, key } = await personWithApp();
    const { agent } = await passwordStep(limited, user);
    // The password is held as an attempt until its second factor is right: two wrong codes fill the three.
    for (let i = 0; i < 2; i++) expect((await giveCode(agent, `00000${i}`)).status).toBe(401);
    const right = totpCode(key, clock.now() + NEXT_STEP);
    const refused = await giveCode(agent, right);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    // The refused code was not used up: once the account is unlocked, the same code signs in.
    await forgetFailuresOf(testConfig(), user.email);
    expect((await giveCode(agent, right)).status).toBe(303);
  });

  it('accepts a code once with the budgets on: of 100 at once on two instances, one signs in, the others are refused', async () => {
    // The 15-minute budgets wide open; the daily one for wrong codes (30) lets some through to be checked.
    const budget = {
      RATE_LIMITS: 'on',
      RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_ADDRESS: '1000',
      RATE_LIMIT_SIGN_IN_PER_ACCOUNT: '1000',
      RATE_LIMIT_SIGN_IN_PER_ADDRESS: '1000',
    };
    const servers: [Express, Express] = [testApp(budget, { clock }), testApp(budget, { clock })];
    const { user, key } = await personWithApp();
    const code = totpCode(key, clock.now() + NEXT_STEP);
    const { answers, agents } = await codeFromHundredBrowsers(servers, user, code);
    // Each answer as what it means (issue 48, finding 14): a sign-in goes on to /home; a 303 anywhere
    // else (to /login: no sign-in waited) would be no sign-in, and is named so.
    const outcomes = answers.map((res) => (res.status === 303 ? `303 ${res.headers.location}` : String(res.status)));
    expect(outcomes.filter((outcome) => outcome.startsWith('303'))).toEqual(['303 /home']);
    expect(outcomes.filter((outcome) => outcome !== '401' && outcome !== '429' && outcome !== '303 /home')).toEqual([]);
    expect(outcomes.filter((outcome) => outcome === '401').length).toBeGreaterThan(0);
    // And one browser is signed in: the one that was answered 303.
    const signedIn = await Promise.all(agents.map(async (agent) => (await agent.get('/account')).status === 200));
    expect(signedIn.filter(Boolean)).toHaveLength(1);
    expect(signedIn.indexOf(true)).toBe(outcomes.indexOf('303 /home'));
    // The address's many attempts would fill the next tests' default budget for 127.0.0.1.
    await HitModel.deleteMany({}).exec();
  }, 60_000);

  it('gives the held password back once the second factor is right: sign-ins with the app never fill the budget', async () => {
    // A budget of two (the password held, and the code's own attempt): a password held and never given
    // back would leave no room for the next sign-in's code.
    const { user, key, at } = await personWithApp();
    // Its clock stays at the enrolment's moment, so the steps either side of the enrolment's stay in its
    // window (with real time, crossing a step between the two made the step before the enrolment's own).
    const limited = testApp({ RATE_LIMITS: 'on', RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_ADDRESS: '2' }, { clock: { now: () => at } });
    for (const step of [NEXT_STEP, -NEXT_STEP]) {
      const { agent } = await passwordStep(limited, user);
      expect((await giveCode(agent, totpCode(key, at + step))).status).toBe(303);
    }
  });

  it('takes a recovery code instead, once', async () => {
    const { user, recoveryCodes } = await personWithApp();
    const first = await passwordStep(app, user);
    expect((await giveCode(first.agent, recoveryCodes[0].toUpperCase())).status).toBe(303);
    expect((await first.agent.get('/account').expect(200)).text).toContain('9 of 10 left');
    const again = await passwordStep(app, user);
    expect((await giveCode(again.agent, recoveryCodes[0])).status).toBe(401);
  });

  it('sends a browser without a waiting sign-in back to /login', async () => {
    const agent = request.agent(app);
    expect((await agent.get('/login/verify')).headers.location).toBe('/login');
  });
});

describe('acr and step-up', () => {
  it('gives acr 1 and amr pwd for a password alone', async () => {
    const { agent } = await signedInAgent(app, await createUser());
    const { claims } = await idTokenFor(agent, {});
    expect(claims).toMatchObject({ acr: '1', amr: ['pwd'] });
  });

  it('asks a person signed in with a password alone for the second factor when a client wants acr 2', async () => {
    const user = await createUser();
    const { agent } = await signedInAgent(app, user);
    // Turned on in another browser: this one was signed in with the password alone, and steps up.
    const { key } = await enrolTotp((await signedInAgent(app, user)).agent);
    const { claims } = await idTokenFor(agent, { acr_values: '2' }, key);
    expect(claims).toMatchObject({ acr: '2', amr: ['pwd', 'otp', 'mfa'] });
  });

  it('goes on at acr 1 for a person without a factor when acr 2 is only wished, and refuses when it is essential', async () => {
    const { agent } = await signedInAgent(app, await createUser());
    const { claims } = await idTokenFor(agent, { acr_values: '2' });
    expect(claims).toMatchObject({ acr: '1' });
    const essential = await idTokenFor(agent, { claims: JSON.stringify({ id_token: { acr: { essential: true, values: ['2'] } } }) });
    expect(essential.location?.searchParams.get('error')).toBe('access_denied');
  });

  it('answers interaction_required to prompt=none when a second factor would be needed', async () => {
    const user = await createUser();
    const { agent } = await signedInAgent(app, user);
    // The app is turned on in another browser: this one was signed in with the password alone.
    await enrolTotp((await signedInAgent(app, user)).agent);
    const { location } = await idTokenFor(agent, { acr_values: '2', prompt: 'none' });
    expect(location).toBeDefined();
    expect(location?.searchParams.get('error')).toBe('interaction_required');
  });
});

describe('removing a factor', () => {
  it('needs a second factor given in the last 10 minutes, and then turns the app off after it', async () => {
    const { user, key, recoveryCodes } = await personWithApp();
    const { agent } = await passwordStep(app, user);
    expect((await giveCode(agent, totpCode(key, clock.now() + NEXT_STEP))).status).toBe(303);
    // Eleven minutes later the sign-in is no longer fresh.
    clock.move(11 * 60_000);
    try {
      const account = await agent.get('/account').expect(200);
      const stale = await agent
        .post('/account/totp/remove')
        .type('form')
        .send({ _csrf: csrfFrom(account.text) });
      expect(stale.status).toBe(303);
      expect(stale.headers.location).toBe('/login/verify');
      expect((await TotpModel.findById(user.id).lean())?.confirmedAt).toBeDefined();
      // The page says why it asks, and Cancel goes back to the account.
      const asked = await agent.get('/login/verify').expect(200);
      expect(asked.text).toContain('To turn off the authenticator app, confirm it is you');
      expect(asked.text).toContain('<a href="/account">Cancel</a>');
      expect(asked.text).not.toContain('Start again');
      // Given again (a recovery code), the app is turned off at once: no second click.
      const again = await giveCode(agent, recoveryCodes[0]);
      expect(again.headers.location).toBe('/account?done=totp-removed');
      expect(await TotpModel.findById(user.id).lean()).toBeNull();
      expect((await agent.get(again.headers.location)).text).toContain('The authenticator app is turned off.');
      // Without a factor the recovery codes go too, and signing in is one step again.
      expect((await passwordStep(app, user)).res.headers.location).toBe('/home');
    } finally {
      clock.move(-11 * 60_000);
    }
  });
});

describe('codes out of their window, new recovery codes, and passkeys on the account page', () => {
  it('refuses a code from two steps ago (out of the window)', async () => {
    const { user, key } = await personWithApp();
    const { agent } = await passwordStep(app, user);
    expect((await giveCode(agent, totpCode(key, clock.now() - 2 * NEXT_STEP - 1000))).status).toBe(401);
  });

  it('makes new recovery codes (the old ones end) after a fresh second factor', async () => {
    const { user, key, recoveryCodes } = await personWithApp();
    const { agent } = await passwordStep(app, user);
    expect((await giveCode(agent, totpCode(key, clock.now() + NEXT_STEP))).status).toBe(303);
    const asked = await postForm(agent, '/account', '/account/recovery-codes', {});
    expect(asked.status).toBe(303);
    expect(asked.headers.location).toBe('/account/recovery-codes/new');
    const made = await agent.get(asked.headers.location).expect(200);
    // Shown once.
    expect((await agent.get(asked.headers.location).expect(302)).headers.location).toBe('/account');
    const fresh = [...made.text.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((match) => match[1]);
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(recoveryCodes[1]);
    const old = await passwordStep(app, user);
    expect((await giveCode(old.agent, recoveryCodes[1])).status).toBe(401);
    const next = await passwordStep(app, user);
    expect((await giveCode(next.agent, fresh[0])).status).toBe(303);
    expect((await next.agent.get('/account')).text).toContain('New recovery codes made');
  });

  it('renames and removes a passkey, and only the owner can', async () => {
    const { user, key } = await personWithApp();
    await storedPasskey(user.id, 'Old laptop');
    const { agent } = await passwordStep(app, user);
    expect((await giveCode(agent, totpCode(key, clock.now() + NEXT_STEP))).status).toBe(303);
    const page = await agent.get('/account').expect(200);
    expect(page.text).toContain('Old laptop');

    const stranger = await signedInAgent(app, await createUser());
    const strangerPage = await stranger.agent.get('/account');
    await stranger.agent
      .post(`/account/passkeys/cred-${user.id}/rename`)
      .type('form')
      .send({ _csrf: csrfFrom(strangerPage.text), name: 'Mine now' });
    expect((await PasskeyModel.findById(`cred-${user.id}`).lean())?.name).toBe('Old laptop');

    await agent
      .post(`/account/passkeys/cred-${user.id}/rename`)
      .type('form')
      .send({ _csrf: csrfFrom(page.text), name: 'Work laptop' })
      .expect(303);
    expect((await PasskeyModel.findById(`cred-${user.id}`).lean())?.name).toBe('Work laptop');
    const removed = await agent
      .post(`/account/passkeys/cred-${user.id}/remove`)
      .type('form')
      .send({ _csrf: csrfFrom(page.text) });
    expect(removed.headers.location).toBe('/account?done=passkey-removed');
    expect(await PasskeyModel.findById(`cred-${user.id}`).lean()).toBeNull();
    // The app is still on: the recovery codes stay.
    expect((await agent.get('/account')).text).toContain('10 of 10 left');
  });
});

describe('the passkey endpoints without a ceremony', () => {
  it('serve the two scripts from this server, and nothing else under /assets', async () => {
    for (const name of ['webauthn-browser.js', 'passkeys.js']) {
      const res = await request(app).get(`/assets/${name}`).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    }
    await request(app).get('/assets/other.js').expect(404);
  });

  it('answer 400 when no sign-in waits for a second factor, and refuse what is no WebAuthn answer', async () => {
    const res = await request(app).post('/login/verify/passkey').send({ response: {} }).expect(400);
    expect(res.body).toEqual({ error: expect.stringContaining('No sign-in is waiting') });
    const agent = request.agent(app);
    const login = await agent.get('/login');
    const refused = await agent
      .post('/login/passkey')
      .send({ _csrf: csrfFrom(login.text), response: { id: 42 } })
      .expect(400);
    expect(refused.body).toEqual({ error: 'This is not a passkey answer.' });
  });
});
