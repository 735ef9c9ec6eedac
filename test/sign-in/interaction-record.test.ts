// The browser's unfinished flow is an interaction record named by a short-lived cookie
// (sign-in/interaction.ts): the session holds only who is signed in and how. Each record is used
// once (also by many requests at once), expires, and a step's mark goes back when its check fails.
import request from 'supertest';
import { SessionModel } from '../../src/session/session.model';
import { InteractionModel } from '../../src/sign-in/interaction.model';
import { setDisabled } from '../../src/users/users.service';
import { testApp } from '../helpers/app';
import { postForm } from '../helpers/account-pages';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp, giveCode, passwordStep, totpCode } from '../helpers/factors';
import { csrfFrom, signedInAgent } from '../helpers/oauth';

useTestDatabase();
// Still: the codes below are given by their step relative to the enrolment's (the previous step's, the
// next's), which a running clock crossing a step boundary between the two would shift.
const clock = movableClock({ still: true });
const app = testApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'true' }, { clock });
const STEP = 30_000;
let addresses = 0;

/** A person with the app on (its enrolment used this time step's code), signed out, and a browser of their own address (its budgets untouched). */
async function personWithApp() {
  const user = await createUser();
  const { agent } = await signedInAgent(app, user);
  const { key, recoveryCodes } = await enrolTotp(agent, clock.now());
  const browser = request.agent(app).set('X-Forwarded-For', `198.51.100.${++addresses}`);
  return { user, key, recoveryCodes, browser };
}

/** The value of a cookie a response set, and its attributes. */
function setCookie(res: request.Response, name: string): { value: string; attributes: string } | null {
  const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((line) => line.startsWith(`${name}=`));
  if (!header) return null;
  const [pair, ...attributes] = header.split(';');
  return { value: pair.slice(name.length + 1), attributes: attributes.join(';').trim() };
}

/** The session documents' data (what express-session stores), every key of every session. */
async function sessionKeys(): Promise<string[]> {
  // The sessions themselves, not the slots their people hold beside them (session.store.ts).
  const sessions = (await SessionModel.find().lean()).filter((session) => session.data !== undefined);
  return [...new Set(sessions.flatMap((session) => Object.keys(JSON.parse(session.data) as object)))].sort();
}

const WHO_AND_HOW = ['address', 'amr', 'authTime', 'cookie', 'csrfToken', 'device', 'oidcSid', 'userId'];

it('keeps the pending second step in an interaction record named by a short-lived cookie, not in a session', async () => {
  const { user, key, browser } = await personWithApp();
  const { res } = await passwordStep(app, user, browser);
  expect(res.headers.location).toBe('/login/verify');
  // Nobody is signed in yet: no session cookie; the interaction's cookie lives as long as the step.
  expect(setCookie(res, 'sid')).toBeNull();
  const cookie = setCookie(res, 'interaction')!;
  expect(cookie.attributes).toMatch(/Max-Age=600/);
  expect(cookie.attributes).toMatch(/HttpOnly/);
  expect(cookie.attributes).toMatch(/SameSite=Lax/);
  const record = await InteractionModel.findById(cookie.value).lean();
  expect(record?.step).toMatchObject({ kind: 'sign-in', userId: user.id, via: 'password', factors: { totp: true } });
  // The password's three budget hits are held by the interaction, given back with the second step's.
  expect(record?.step?.held).toHaveLength(3);
  expect(await giveCode(browser, totpCode(key, clock.now() + STEP))).toMatchObject({ status: 303, headers: { location: '/home' } });
  expect(await sessionKeys()).toEqual(WHO_AND_HOW);
});

it('is used once: the old cookie, copied and sent again with the next right code, signs nobody in', async () => {
  const { user, key, browser } = await personWithApp();
  const { res } = await passwordStep(app, user, browser);
  const copied = setCookie(res, 'interaction')!.value;
  const done = await giveCode(browser, totpCode(key, clock.now() - STEP));
  expect(done.headers.location).toBe('/home');
  // The browser was told to forget it.
  expect(setCookie(done, 'interaction')?.attributes).toMatch(/Expires=Thu, 01 Jan 1970/);
  const thief = request.agent(app).set('X-Forwarded-For', `198.51.100.${++addresses}`).set('Cookie', `interaction=${copied}`);
  const page = await thief.get('/login/verify').expect(200);
  const again = await thief
    .post('/login/verify')
    .type('form')
    .send({ _csrf: csrfFrom(page.text), code: totpCode(key, clock.now() + STEP) });
  expect(again.status).toBe(303);
  expect(again.headers.location).toBe('/login');
  expect(setCookie(again, 'sid')).toBeNull();
});

it('signs in once when 12 right factors arrive with one interaction at the same moment', async () => {
  // Without budgets (rate limits off), so that every request reaches the step.
  const unlimited = testApp({}, { clock });
  const user = await createUser();
  const { key, recoveryCodes } = await enrolTotp((await signedInAgent(unlimited, user)).agent, clock.now());
  const { agent: browser } = await passwordStep(unlimited, user);
  const page = await browser.get('/login/verify').expect(200);
  // The app's two codes the window accepts besides the one its enrolment used, and every recovery code.
  const codes = [-STEP, STEP].map((offset) => totpCode(key, clock.now() + offset)).concat(recoveryCodes);
  const answers = await Promise.all(
    codes.map((code) =>
      browser
        .post('/login/verify')
        .type('form')
        .send({ _csrf: csrfFrom(page.text), code }),
    ),
  );
  expect(answers.filter((answer) => setCookie(answer, 'sid') !== null)).toHaveLength(1);
  expect(answers.filter((answer) => answer.status === 303 && answer.headers.location === '/login')).toHaveLength(codes.length - 1);
});

it('gives the step back when the app code was used already: a right code then still signs in', async () => {
  const { user, key, browser } = await personWithApp();
  const used = totpCode(key, clock.now() - STEP);
  await passwordStep(app, user, browser);
  expect((await giveCode(browser, used)).headers.location).toBe('/home');
  const other = request.agent(app).set('X-Forwarded-For', `198.51.100.${++addresses}`);
  await passwordStep(app, user, other);
  expect((await giveCode(other, used)).status).toBe(401);
  expect((await giveCode(other, totpCode(key, clock.now() + STEP))).headers.location).toBe('/home');
});

it('expires with the step: ten minutes later the second step is gone', async () => {
  const { user, browser } = await personWithApp();
  await passwordStep(app, user, browser);
  expect((await browser.get('/login/verify')).status).toBe(200);
  clock.move(10 * 60_000);
  try {
    expect((await browser.get('/login/verify')).headers.location).toBe('/login');
  } finally {
    clock.move(-10 * 60_000);
  }
});

it('shows a step-up action’s new recovery codes once, from an interaction of their owner, never from the session', async () => {
  const { user, key, browser } = await personWithApp();
  await passwordStep(app, user, browser);
  await giveCode(browser, totpCode(key, clock.now() - STEP));
  const asked = await postForm(browser, '/account', '/account/recovery-codes', {});
  expect(asked.headers.location).toBe('/account/recovery-codes/new');
  const codesCookie = setCookie(asked, 'interaction')!.value;
  expect((await InteractionModel.findById(codesCookie).lean())?.codes).toHaveLength(10);
  expect(await sessionKeys()).toEqual(WHO_AND_HOW);
  // Another person's browser with a copy of the cookie sees nothing.
  const { agent: stranger } = await signedInAgent(app, await createUser());
  stranger.set('Cookie', `interaction=${codesCookie}`);
  expect((await stranger.get('/account/recovery-codes/new')).headers.location).toBe('/account');
  expect((await browser.get('/account/recovery-codes/new')).status).toBe(200);
  expect((await browser.get('/account/recovery-codes/new')).headers.location).toBe('/account');
  expect(await InteractionModel.findById(codesCookie).lean()).toBeNull();
});

it('signs nobody in when the account is disabled while its second step waits (the policy, at the last factor)', async () => {
  const { user, key, browser } = await personWithApp();
  await passwordStep(app, user, browser);
  await setDisabled(user.id, true, () => Promise.resolve());
  const res = await giveCode(browser, totpCode(key, clock.now() + STEP));
  expect(res.status).toBe(303);
  expect(res.headers.location).toBe('/login');
  expect(setCookie(res, 'sid')).toBeNull();
});
