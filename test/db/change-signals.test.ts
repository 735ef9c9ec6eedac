// Change signals under concurrency: the first raises of a signal race to create its document; a
// burst of raises in one process shares writes; raises on two instances at once are never lost.
import mongoose from 'mongoose';
import { ChangeSignal } from '../../src/db/change-signals';
import { useMonitoredTestDatabase } from '../helpers/db';

const { commands } = useMonitoredTestDatabase();

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

it('writes 100 raises at once in one process as at most two writes, and another instance sees them', async () => {
  const raiser = new ChangeSignal('shared-signal', 0);
  const reader = new ChangeSignal('shared-signal', 0);
  await raiser.raise();
  const before = await reader.current();
  commands.length = 0;
  await Promise.all(Array.from({ length: 100 }, () => raiser.raise()));
  expect(commands.filter((command) => command === 'findAndModify change_signals').length).toBeLessThanOrEqual(2);
  expect(await reader.current()).toBeGreaterThan(before);
});

it('sees raises made on two instances at once, round after round', async () => {
  const first = new ChangeSignal('two-instances', 0);
  const second = new ChangeSignal('two-instances', 0);
  const reader = new ChangeSignal('two-instances', 0);
  await first.raise();
  for (let round = 0; round < 20; round++) {
    await reader.current();
    const seen = reader.seen;
    // Both instances raise at once; whatever order they land in, the stored value is new to the reader.
    await Promise.all([first.raise(), second.raise()]);
    expect(await reader.current()).toBeGreaterThan(seen);
  }
});
