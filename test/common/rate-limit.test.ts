// The rate limiter's reservation against the real database: one round trip when nothing stands in the
// way, never more hits than a key's limit however many race for it, an expired hit's slot taken again,
// and a refusal that leaves nothing written. Time is the `now` handed in, moved instead of waited for.
import mongoose from 'mongoose';
import { limitRule, reserve, TooManyRequestsError, type Hit } from '../../src/common/rate-limit';
import { heldPositions } from '../../src/common/rate-limit.store';
import { useMonitoredTestDatabase } from '../helpers/db';

const { commands } = useMonitoredTestDatabase();
const hits = () => mongoose.connection.collection('rate_limit_hits');
const liveHits = (key: string, now: Date) => hits().countDocuments({ key, expiresAt: { $gt: now } });
let unique = 0;
const ruleOf = (limit: number) => limitRule(`test-${++unique}`, limit);
const at = (start: Date, ms: number) => new Date(start.getTime() + ms);

it('takes a free slot in one round trip, and gives it back in one', async () => {
  const rule = ruleOf(5);
  const now = new Date();
  commands.length = 0;
  const reservation = await reserve([{ rule, key: 'a' }], now);
  expect(commands).toEqual(['insert rate_limit_hits']);
  expect(await liveHits(`${rule.name}:a`, now)).toBe(1);
  commands.length = 0;
  await reservation.release();
  expect(commands).toEqual(['delete rate_limit_hits']);
  expect(await liveHits(`${rule.name}:a`, now)).toBe(0);
});

it("takes a slot beside the ones it knows are held (an earlier step's) in one round trip, and a known full key still refuses", async () => {
  const now = new Date();
  // Two slots, one held by the first step: without the known id, the second step would pick it half
  // the time, and look again (three more commands); twenty keys make that all but certain.
  for (let i = 0; i < 20; i++) {
    const rule = ruleOf(2);
    const first = await reserve([{ rule, key: 'k' }], now);
    commands.length = 0;
    const second = await reserve([{ rule, key: 'k' }], now, [], first.ids);
    expect({ i, commands }).toEqual({ i, commands: ['insert rate_limit_hits'] });
    expect(second.ids).not.toEqual(first.ids);
    // Both slots held and known: refused, nothing written.
    await expect(reserve([{ rule, key: 'k' }], now, [], [...first.ids, ...second.ids])).rejects.toBeInstanceOf(TooManyRequestsError);
    expect(await liveHits(`${rule.name}:k`, now)).toBe(2);
  }
});

it('lets no more than the limit through of 100 at once, and the refused write nothing', async () => {
  const rule = ruleOf(7);
  const now = new Date();
  const outcomes = await Promise.allSettled(Array.from({ length: 100 }, () => reserve([{ rule, key: 'burst' }], now)));
  const granted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
  expect(granted.length).toBeLessThanOrEqual(7);
  expect(granted.length).toBeGreaterThan(0);
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(TooManyRequestsError);
  }
  expect(await liveHits(`${rule.name}:burst`, now)).toBe(granted.length);
});

it('refuses once the limit is held, with the wait until the oldest hit expires, and takes an expired slot again', async () => {
  const rule = ruleOf(2);
  const start = new Date();
  await reserve([{ rule, key: 'k' }], start);
  await reserve([{ rule, key: 'k' }], at(start, 60_000));
  const refused = await reserve([{ rule, key: 'k' }], at(start, 120_000)).catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(TooManyRequestsError);
  expect((refused as TooManyRequestsError).retryAfterSeconds).toBe(Math.ceil((rule.windowMs - 120_000) / 1000));
  // One window after the first hit its slot is free again, whatever number it had; the second still counts.
  const later = at(start, rule.windowMs + 1);
  await reserve([{ rule, key: 'k' }], later);
  expect(await liveHits(`${rule.name}:k`, later)).toBe(2);
  await expect(reserve([{ rule, key: 'k' }], later)).rejects.toBeInstanceOf(TooManyRequestsError);
});

it('clearing an expired hit never deletes the hit that took its slot since (FerretDB deletes by filter as a read, then a delete by id)', async () => {
  const rule = ruleOf(1);
  const start = new Date();
  const later = at(start, rule.windowMs + 1);
  await reserve([{ rule, key: 'k' }], start);
  // A sweep's read at `later`: the expired hit's id. Before its delete lands, a request takes the slot.
  const seenExpired = await hits()
    .find({ key: `${rule.name}:k`, expiresAt: { $lte: later } })
    .toArray();
  expect(seenExpired).toHaveLength(1);
  const taken = await reserve([{ rule, key: 'k' }], later);
  await hits().deleteMany({ _id: { $in: seenExpired.map((doc) => doc._id) } });
  expect(await liveHits(`${rule.name}:k`, later)).toBe(1);
  await expect(reserve([{ rule, key: 'k' }], later)).rejects.toBeInstanceOf(TooManyRequestsError);
  await taken.release();
  expect(await liveHits(`${rule.name}:k`, later)).toBe(0);
});

it('takes back the hits of the other rules when one rule is full', async () => {
  const full = ruleOf(1);
  const open = ruleOf(10);
  const now = new Date();
  await reserve([{ rule: full, key: 'x' }], now);
  const both: Hit[] = [
    { rule: open, key: 'y' },
    { rule: full, key: 'x' },
  ];
  await expect(reserve(both, now)).rejects.toBeInstanceOf(TooManyRequestsError);
  expect(await liveHits(`${open.name}:y`, now)).toBe(0);
  expect(await liveHits(`${full.name}:x`, now)).toBe(1);
});

describe('reading a bulk insert’s refusal (heldPositions): only duplicates that account for every unwritten document', () => {
  const dup = (index: number) => ({ index, code: 11000 });
  it.each([
    ['two slots held, four written', [dup(3), dup(4)], 4, 6, new Set([3, 4])],
    ['every slot held', [dup(0), dup(1)], 0, 2, new Set([0, 1])],
    // FerretDB with SQLite busy: an error with no write errors, nothing inserted. Read as "all
    // written", a single-use mark went to several requests at once.
    ['an error naming no document, nothing written', [], 0, 6, null],
    ['an error naming fewer documents than it did not write', [dup(1)], 3, 6, null],
    ['another failure beside a duplicate', [dup(1), { index: 2, code: 1 }], 4, 6, null],
    ['no count of the written', [dup(1)], undefined, 6, null],
  ] as const)('%s', (_name, failed, inserted, count, expected) => {
    expect(heldPositions(failed, inserted, count)).toEqual(expected);
  });
});
