// The queue behind mail and back-channel logout: bounded waiting, bounded work at once, retries with
// a pause, and a drain that shutdown can wait on.
import { createWorkQueue } from '../../src/common/work-queue';

const limits = { attempts: 3, backoffMs: [20, 40], concurrent: 2, queued: 5 };

it('works on at most `concurrent` items at once and refuses past `queued` waiting', async () => {
  let running = 0;
  let most = 0;
  const done: number[] = [];
  const queue = createWorkQueue<number>(
    limits,
    async (item) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running--;
      done.push(item);
    },
    { retried: () => undefined, failed: () => undefined },
  );
  // Two start at once; five may wait; the eighth is refused.
  const added = Array.from({ length: 8 }, (_, i) => queue.add(i));
  expect(added).toEqual([true, true, true, true, true, true, true, false]);
  expect(queue.pending).toBe(7);
  await queue.drained(5000);
  expect(queue.pending).toBe(0);
  expect(most).toBe(2);
  expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
});

it('retries a failing item after each pause, reports each retry, and reports the last failure once', async () => {
  const attempts: number[] = [];
  const retried: number[] = [];
  const failed: unknown[] = [];
  const queue = createWorkQueue<string>(
    limits,
    (_item, attempt) => {
      attempts.push(attempt);
      return Promise.reject(new Error(`attempt ${attempt}`));
    },
    { retried: (_item, attempt) => retried.push(attempt), failed: (_item, err) => failed.push(err) },
  );
  queue.add('message');
  await queue.drained(5000);
  expect(attempts).toEqual([1, 2, 3]);
  expect(retried).toEqual([1, 2]);
  expect(failed).toEqual([new Error('attempt 3')]);
});

it('stops at the first success', async () => {
  const attempts: number[] = [];
  const queue = createWorkQueue<string>(
    limits,
    (_item, attempt) => {
      attempts.push(attempt);
      return attempt === 2 ? Promise.resolve() : Promise.reject(new Error('not yet'));
    },
    { retried: () => undefined, failed: () => undefined },
  );
  queue.add('message');
  await queue.drained(5000);
  expect(attempts).toEqual([1, 2]);
});

it('drained() gives up after its timeout while work is still under way', async () => {
  const queue = createWorkQueue<string>(limits, () => new Promise((resolve) => setTimeout(resolve, 500)), {
    retried: () => undefined,
    failed: () => undefined,
  });
  queue.add('slow');
  await queue.drained(20);
  expect(queue.pending).toBe(1);
  await queue.drained(5000);
  expect(queue.pending).toBe(0);
});
