// The records back-channel logout keeps (oauth/oidc/backchannel.dao.ts): one per OpenID session, found
// by its sid, and a list of each person's sessions, so a sign-out and a new password read by `_id`
// alone (test/db/lookups-by-key.test.ts). Changes that arrive at once lose nothing, a session is
// taken once however many ask, both are bounded, and records kept the earlier way are carried over.
import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import * as backchannelDao from '../../src/oauth/oidc/backchannel.dao';
import { BACKCHANNEL_RECORD_LIMITS } from '../../src/oauth/oidc/backchannel.dao';
import { PAIRS_COLLECTION, SessionClientsModel } from '../../src/oauth/oidc/backchannel.model';
import { journalWritten, sweepJournals } from '../../src/db/expiry-journal';
import { useTestDatabase } from '../helpers/db';

useTestDatabase();

const fresh = (what: string) => `${what}-${randomBytes(6).toString('hex')}`;
const at = new Date('2026-12-01T00:00:00Z');
const clientsOf = (taken: backchannelDao.SessionClient[]) => taken.map((pair) => pair.clientId).sort();
/** The person's list of sessions as stored (db/owner-lists.ts); null once empty. */
const listOf = (userId: string) =>
  mongoose.connection.collection('owner_lists').findOne({ _id: `backchannel-sessions:${userId}` as never });
const numbered = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);

it('keeps every client of a session when 100 get their first grant at once', async () => {
  const sid = fresh('sid');
  const userId = fresh('person');
  const clients = numbered('client', 100);
  await Promise.all(clients.map((clientId) => backchannelDao.remember(sid, userId, clientId, at)));
  const taken = await backchannelDao.takeSession(sid);
  expect(clientsOf(taken)).toEqual(clients);
  expect(new Set(taken.map((pair) => `${pair.sid} ${pair.userId}`))).toEqual(new Set([`${sid} ${userId}`]));
}, 60_000);

it('lists every session of a person when 100 begin at once, and a new password takes them all', async () => {
  const userId = fresh('person');
  const sids = numbered(fresh('sid'), 100);
  await Promise.all(sids.map((sid) => backchannelDao.remember(sid, userId, 'the-client', at)));
  const taken = await backchannelDao.takePerson(userId);
  expect(taken.map((pair) => pair.sid).sort()).toEqual(sids);
  expect(await backchannelDao.takePerson(userId)).toEqual([]);
}, 60_000);

it('gives a session to one of 100 callers that end it at once', async () => {
  const sid = fresh('sid');
  await backchannelDao.remember(sid, fresh('person'), 'one', at);
  await backchannelDao.remember(sid, fresh('person'), 'two', at);
  const results = await Promise.all(Array.from({ length: 100 }, () => backchannelDao.takeSession(sid)));
  const winners = results.filter((taken) => taken.length > 0);
  expect(winners).toHaveLength(1);
  expect(clientsOf(winners[0])).toEqual(['one', 'two']);
}, 60_000);

it('records a client once however often it is granted in the session', async () => {
  const sid = fresh('sid');
  const userId = fresh('person');
  for (let i = 0; i < 3; i++) await backchannelDao.remember(sid, userId, 'again', at);
  expect(await backchannelDao.takeSession(sid)).toEqual([{ sid, userId, clientId: 'again' }]);
});

it('leaves a session that ended out of the person list, so a new password does not tell its clients again', async () => {
  const userId = fresh('person');
  const [ended, open] = [fresh('sid'), fresh('sid')];
  await backchannelDao.remember(ended, userId, 'a', at);
  await backchannelDao.remember(open, userId, 'b', at);
  expect(await backchannelDao.takeSession(ended)).toHaveLength(1);
  expect(await backchannelDao.takePerson(userId)).toEqual([{ sid: open, userId, clientId: 'b' }]);
});

it('deletes a record past its lifetime through the expiry journal, and drops it from the person list at the next new password', async () => {
  const userId = fresh('person');
  const [old, recent] = [fresh('sid'), fresh('sid')];
  await backchannelDao.remember(old, userId, 'a', new Date(Date.now() - BACKCHANNEL_RECORD_LIMITS.lifetimeMs - 60_000));
  await backchannelDao.remember(recent, userId, 'b', new Date());
  await journalWritten();
  // Two hours on: the hour's journal holding the lapsed record is due, the recent one's (a month on) is not.
  await sweepJournals(new Date(Date.now() + 2 * 3600_000));
  expect(await SessionClientsModel.exists({ _id: old })).toBeNull();
  expect(await backchannelDao.takePerson(userId)).toEqual([{ sid: recent, userId, clientId: 'b' }]);
  expect(await listOf(userId)).toBeNull();
});

it(`remembers ${BACKCHANNEL_RECORD_LIMITS.clientsPerSession} clients of a session and ${BACKCHANNEL_RECORD_LIMITS.sessionsPerPerson} sessions of a person, forgetting the earliest`, async () => {
  const sid = fresh('sid');
  const userId = fresh('person');
  const clients = numbered('client', BACKCHANNEL_RECORD_LIMITS.clientsPerSession + 1);
  for (const clientId of clients) await backchannelDao.remember(sid, userId, clientId, at);
  expect(clientsOf(await backchannelDao.takeSession(sid))).toEqual(clients.slice(1));

  const sids = numbered(fresh('sid'), BACKCHANNEL_RECORD_LIMITS.sessionsPerPerson + 1);
  for (const each of sids) await backchannelDao.remember(each, userId, 'the-client', at);
  expect((await backchannelDao.takePerson(userId)).map((pair) => pair.sid).sort()).toEqual(sids.slice(1));
}, 60_000);

it('carries the records kept one per session and client over, each taken by its session or its person', async () => {
  const pairs = mongoose.connection.collection(PAIRS_COLLECTION);
  const [alice, bob] = [fresh('alice'), fresh('bob')];
  const [first, second, third] = [fresh('sid'), fresh('sid'), fresh('sid')];
  const old = [
    { sid: first, userId: alice, clientId: 'x' },
    { sid: first, userId: alice, clientId: 'y' },
    { sid: second, userId: alice, clientId: 'x' },
    { sid: third, userId: bob, clientId: 'z' },
  ];
  await pairs.insertMany(old.map((pair, i) => ({ _id: fresh('pair') as never, ...pair, createdAt: new Date(at.getTime() + i) })));
  expect(await backchannelDao.regroupPairs()).toBe(4);
  expect(await pairs.countDocuments()).toBe(0);
  expect(clientsOf(await backchannelDao.takeSession(first))).toEqual(['x', 'y']);
  expect(await backchannelDao.takePerson(alice)).toEqual([{ sid: second, userId: alice, clientId: 'x' }]);
  expect(await backchannelDao.takePerson(bob)).toEqual([{ sid: third, userId: bob, clientId: 'z' }]);
});
