// The record lock against the real database: one holder at a time, however many race for it; a lapsed
// lease taken over; and neither clearing a lapsed lease nor a release deletes the lock another holder
// took since (FerretDB deletes by filter as a read, then a delete by id).
import mongoose from 'mongoose';
import { withRecordLock } from '../../src/db/record-lock';
import type { CommandStartedEvent } from 'mongodb';
import { useMonitoredTestDatabase, watchingCommands } from '../helpers/db';

useMonitoredTestDatabase();
const locks = () => mongoose.connection.collection('record_locks');

it('lets one holder in at a time of 20 at once', async () => {
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 20 }, () =>
      withRecordLock('race', async () => {
        most = Math.max(most, ++inside);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inside--;
      }),
    ),
  );
  expect(most).toBe(1);
  expect(await locks().countDocuments({ name: 'race' })).toBe(0);
});

it("keeps this process's 20 waiters out while another instance holds the lock, one of them racing for it, then lets them in one at a time", async () => {
  // Another instance's lock, written as its acquire writes it.
  await locks().insertOne({ _id: 'other-instance' as never, name: 'held', expiresAt: new Date(Date.now() + 10_000) });
  let inside = 0;
  let most = 0;
  let entered = 0;
  // Each caller tries with its own holder id; a refused try clears lapsed leases of the name (a delete).
  const racers = new Set<string>();
  let refusedTwice!: () => void;
  const twice = new Promise<void>((resolve) => (refusedTwice = resolve));
  let refusals = 0;
  const listener = (event: CommandStartedEvent) => {
    if (event.command[event.commandName] !== 'record_locks') return;
    if (event.commandName === 'insert') for (const doc of event.command.documents as { _id: string }[]) racers.add(doc._id);
    if (event.commandName === 'delete' && ++refusals === 2) refusedTwice();
  };
  await watchingCommands(listener, async () => {
    const waiters = Promise.all(
      Array.from({ length: 20 }, () =>
        withRecordLock('held', async () => {
          entered++;
          most = Math.max(most, ++inside);
          await new Promise(setImmediate);
          inside--;
        }),
      ),
    );
    await twice;
    expect([entered, racers.size]).toEqual([0, 1]);
    await locks().deleteOne({ _id: 'other-instance' as never });
    await waiters;
  });
  expect([entered, most]).toEqual([20, 1]);
  expect(await locks().countDocuments({ name: 'held' })).toBe(0);
});

it("takes over a lapsed lease, and a late clear of that lease leaves the new holder's lock", async () => {
  await locks().insertOne({ _id: 'dead-holder' as never, name: 'lapsed', expiresAt: new Date(Date.now() - 1000) });
  // Another instance's clear read the lapsed lock; its delete lands while this holder holds the record.
  const seen = await locks()
    .find({ name: 'lapsed', expiresAt: { $lte: new Date() } })
    .toArray();
  expect(seen).toHaveLength(1);
  await withRecordLock('lapsed', async () => {
    await locks().deleteMany({ _id: { $in: seen.map((lock) => lock._id) } });
    expect(await locks().countDocuments({ name: 'lapsed' })).toBe(1);
  });
  expect(await locks().countDocuments({ name: 'lapsed' })).toBe(0);
});
