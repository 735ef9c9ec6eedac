// Back-channel logout under one account's flood (issue 36, finding 6): 50 clients of one owner whose
// backchannel_logout_uri never answers, all signed in to from one browser, then a sign-out. Another
// person's application hears of their own sign-out at once, not behind the flood, and the silent
// host gets a handful of POSTs, not 150 (BACKCHANNEL_LIMITS in backchannel.service.ts).
import * as oidc from 'openid-client';
import request from 'supertest';
import { BACKCHANNEL_LIMITS } from '../../src/oauth/oidc/backchannel.service';
import { LIMITS } from '../../src/oauth/protocol';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { json, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { approve, signedInAgent, signOutOf } from '../helpers/oauth';
import { authorizationUrl, insecure, useLiveApp } from '../helpers/oidc';

useTestDatabase();
const liveApp = useLiveApp();
const CALLBACK = 'http://127.0.0.1:8400/callback';

let silent: FakeUpstream;
let listening: FakeUpstream;
beforeAll(async () => {
  // Takes every POST and never answers: the server's attempts time out on their own.
  silent = await startFakeUpstream(() => undefined);
  listening = await startFakeUpstream((_req, res) => json(res, 200, {}));
});
afterAll(async () => {
  await silent.close();
  await listening.close();
});

async function accessTokenOf(person: { email: string; password: string }) {
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  return login.body.accessToken as string;
}

/** Registers a client of the person's with this back-channel address, and signs the browser in to it. */
async function signInTo(person: { email: string; password: string }, agent: ReturnType<typeof request.agent>, backchannel: string) {
  const config = await oidc.dynamicClientRegistration(
    new URL(liveApp().issuer),
    { redirect_uris: [CALLBACK], backchannel_logout_uri: backchannel },
    undefined,
    { ...insecure, initialAccessToken: await accessTokenOf(person) },
  );
  const { url } = await authorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid' });
  // The code is issued from this browser session: the client will hear when it ends.
  await approve(agent, Object.fromEntries(url.searchParams));
}

/** Polls until `done` holds (every 50 ms, at most `withinMs`). */
async function until(done: () => boolean, withinMs: number): Promise<boolean> {
  for (let waited = 0; waited < withinMs && !done(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  return done();
}

it("tells another person's application at once while one account's 50 silent clients wait, and sends their host a handful of POSTs", async () => {
  const attacker = await createUser();
  const { agent: attackerBrowser } = await signedInAgent(liveApp().app, attacker);
  for (let i = 0; i < LIMITS.clientsPerOwner; i++) await signInTo(attacker, attackerBrowser, `${silent.url}/silent/${i}`);

  const person = await createUser();
  const { agent: personBrowser } = await signedInAgent(liveApp().app, person);
  await signInTo(person, personBrowser, `${listening.url}/heard`);

  await signOutOf(attackerBrowser);
  await signOutOf(personBrowser);
  expect(await until(() => listening.requests.some((req) => req.url.pathname === '/heard'), 10_000)).toBe(true);
  // When the other application heard, the flood held no more than its owner's share of the slots,
  // and none of its attempts had timed out yet (each waits BACKCHANNEL_LIMITS.timeoutMs).
  const floodWhenHeard = silent.requests.length;
  expect(floodWhenHeard).toBeLessThanOrEqual(BACKCHANNEL_LIMITS.perGroup.concurrent);

  // The silent host is paused for this owner after pauseAfterSilences unanswered deliveries: the
  // slots' worth then under way finish, and nothing more is posted, retries included.
  const most = BACKCHANNEL_LIMITS.pauseAfterSilences + BACKCHANNEL_LIMITS.perGroup.concurrent - 1;
  expect(await until(() => silent.requests.length >= BACKCHANNEL_LIMITS.pauseAfterSilences, 20_000)).toBe(true);
  const longestRetryWait = BACKCHANNEL_LIMITS.timeoutMs + Math.max(...BACKCHANNEL_LIMITS.backoffMs) + 1000;
  expect(await until(() => silent.requests.length > most, longestRetryWait)).toBe(false);
  expect(silent.requests.length).toBeLessThanOrEqual(most);
}, 60_000);
