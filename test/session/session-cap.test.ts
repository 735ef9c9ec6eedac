// The signed-in browsers one account keeps (SESSION_RULES in session.service.ts): past the cap, a
// sign-in ends the surplus, remember-me sessions first and the least recently used first, never the
// browser signing in; "Sign out every other browser" then reads a bounded list.
import request from 'supertest';
import { SessionModel } from '../../src/session/session.model';
import { SESSION_RULES } from '../../src/session/session.service';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { csrfFrom } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

async function signIn(user: { email: string; password: string }, remember: boolean) {
  const agent = request.agent(app);
  const page = await agent.get('/login').expect(200);
  const form = { _csrf: csrfFrom(page.text), email: user.email, password: user.password, ...(remember ? { remember: '1' } : {}) };
  await agent.post('/login').type('form').send(form).expect(303);
  return agent;
}

const signedIn = async (agent: ReturnType<typeof request.agent>) => (await agent.get('/account')).status === 200;

it('keeps at most the cap, ending the least recently used remember-me sessions first', async () => {
  const user = await createUser();
  const { perAccount, checkEvery } = SESSION_RULES;
  // Browser-only sessions first (the oldest), then remember-me ones up to the sign-in that checks
  // the cap with checkEvery - 1 sessions over it (the first sign-in checks, then every checkEvery-th).
  const browserOnly = 10;
  const total = perAccount + checkEvery - 1;
  expect((total - 1) % checkEvery).toBe(0);
  const agents: ReturnType<typeof request.agent>[] = [];
  for (let i = 0; i < total; i++) agents.push(await signIn(user, i >= browserOnly));

  expect(await SessionModel.countDocuments({ userId: user.id })).toBe(perAccount);
  const kept = await Promise.all(agents.map(signedIn));
  const ended = kept.flatMap((isKept, i) => (isKept ? [] : [i]));
  // The oldest remember-me sessions went; every browser-only one, though older, stayed.
  expect(ended).toEqual(Array.from({ length: total - perAccount }, (_, i) => browserOnly + i));
  expect(kept[total - 1]).toBe(true);
});

it('never holds more than the cap and checkEvery - 1 however many sign-ins follow', async () => {
  const user = await createUser();
  const { perAccount, checkEvery } = SESSION_RULES;
  for (let i = 0; i < perAccount + 2 * checkEvery + 3; i++) {
    await signIn(user, true);
    expect(await SessionModel.countDocuments({ userId: user.id })).toBeLessThanOrEqual(perAccount + checkEvery - 1);
  }
});
