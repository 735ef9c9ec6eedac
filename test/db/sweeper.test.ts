// The throttled clean-up that stands in for TTL indexes: at most once per interval, one at a time,
// never awaited by the request that starts it, and tried again after a failure.
import { throttled } from '../../src/db/sweeper';

const at = (ms: number) => new Date(ms);

it('sweeps at most once per interval, in the background', async () => {
  const started: number[] = [];
  let finish: () => void = () => undefined;
  const sweep = throttled(1000, async (now) => {
    started.push(now.getTime());
    await new Promise<void>((resolve) => (finish = resolve));
  });
  // The caller returns at once although the sweep has not finished.
  expect(sweep(at(5000))).toBeUndefined();
  expect(started).toEqual([5000]);
  // Within the interval, nothing; past it but while the first still runs, nothing either.
  sweep(at(5500));
  sweep(at(6500));
  expect(started).toEqual([5000]);
  finish();
  await new Promise((resolve) => setImmediate(resolve));
  sweep(at(6600));
  expect(started).toEqual([5000, 6600]);
});

it('tries again after a failed sweep once the interval has passed, without throwing to the caller', async () => {
  let calls = 0;
  const sweep = throttled(1000, async () => {
    calls++;
    throw new Error('database unreachable');
  });
  sweep(at(10_000));
  await new Promise((resolve) => setImmediate(resolve));
  sweep(at(10_500));
  expect(calls).toBe(1);
  sweep(at(11_000));
  await new Promise((resolve) => setImmediate(resolve));
  expect(calls).toBe(2);
});
