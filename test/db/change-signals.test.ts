// Change signals under concurrency: the first raises of a signal race to create its document.
import mongoose from 'mongoose';
import { ChangeSignal } from '../../src/db/change-signals';
import { useTestDatabase } from '../helpers/db';

useTestDatabase();

it('takes 50 first raises at once, none failing, and another instance sees the change', async () => {
  const raiser = new ChangeSignal('burst-signal', 0);
  const reader = new ChangeSignal('burst-signal', 0);
  const before = await reader.current();
  await Promise.all(Array.from({ length: 50 }, () => raiser.raise()));
  const stored = await mongoose.connection.collection<{ _id: string; version: number }>('change_signals').findOne({ _id: 'burst-signal' });
  expect(stored?.version).toBeGreaterThanOrEqual(1);
  expect(await reader.current()).toBeGreaterThan(before);
});

it('takes its own raise as no news at the next read, and still sees a raise elsewhere', async () => {
  const here = new ChangeSignal('own-signal', 0);
  const elsewhere = new ChangeSignal('own-signal', 0);
  await here.current();
  await here.raise();
  const raised = here.seen;
  // The read after it finds the step this process took: caches emptied once, not twice.
  expect(await here.current()).toBe(raised);
  expect(await here.current()).toBe(raised);
  await elsewhere.raise();
  expect(await here.current()).toBe(raised + 1);
});
