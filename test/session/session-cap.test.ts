// The signed-in browsers one account keeps (SESSION_RULES in session.service.ts): each holds one of
// the person's slots, so past the cap a sign-in ends one, remember-me sessions first and the least
// recently used first, never the browser signing in; "Sign out every other browser" then reads a
// bounded list, by _id.
import request from 'supertest';
import { SessionModel } from '../../src/session/session.model';
import { SESSION_RULES } from '../../src/session/session.service';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { csrfFrom, signOutOf } from '../helpers/oauth';

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
  const { perAccount } = SESSION_RULES;
  // Browser-only sessions first (the oldest), then remember-me ones, five past the cap.
  const browserOnly = 10;
  const total = perAccount + 5;
  const agents: ReturnType<typeof request.agent>[] = [];
  for (let i = 0; i < total; i++) agents.push(await signIn(user, i >= browserOnly));

  expect(await SessionModel.countDocuments({ userId: user.id })).toBe(perAccount);
  const kept = await Promise.all(agents.map(signedIn));
  const ended = kept.flatMap((isKept, i) => (isKept ? [] : [i]));
  // The oldest remember-me sessions went; every browser-only one, though older, stayed.
  expect(ended).toEqual(Array.from({ length: total - perAccount }, (_, i) => browserOnly + i));
  expect(kept[total - 1]).toBe(true);
  // Every live session holds a slot of its own, and no slot names a session that is gone.
  const sessions = await SessionModel.find({ userId: user.id }).lean();
  expect(new Set(sessions.map((session) => session.slot)).size).toBe(perAccount);
  const slots = await SessionModel.collection.find({ _id: { $regex: `^slot:${user.id}#` } as never }).toArray();
  expect(slots.map((slot) => String(slot.sid)).sort()).toEqual(sessions.map((session) => session._id).sort());
  // 55 sign-ins, the last ones reading every slot and its session (100 reads by _id) to end one.
}, 90_000);

it('never holds more than the cap however many sign-ins follow', async () => {
  const user = await createUser();
  const { perAccount } = SESSION_RULES;
  for (let i = 0; i < perAccount + 12; i++) {
    await signIn(user, true);
    expect(await SessionModel.countDocuments({ userId: user.id })).toBeLessThanOrEqual(perAccount);
  }
}, 90_000);

it('gives back the slot of a browser that signs out', async () => {
  const user = await createUser();
  const agent = await signIn(user, false);
  const session = (await SessionModel.findOne({ userId: user.id }).lean())!;
  expect(await SessionModel.collection.findOne({ _id: session.slot as never })).toMatchObject({ sid: session._id });
  await signOutOf(agent);
  expect(await SessionModel.collection.findOne({ _id: session.slot as never })).toBeNull();
  expect(await SessionModel.countDocuments({ userId: user.id })).toBe(0);
});
