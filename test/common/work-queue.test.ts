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

describe('groups and keys (back-channel logout: owners and clients)', () => {
  const fair = { attempts: 2, backoffMs: [30], concurrent: 3, queued: 100, perGroup: { concurrent: 1, queued: 3 } };
  const noReports = { retried: () => undefined, failed: () => undefined };
  const item = (group: string, key: string, n: number) => ({ group, key, n });
  type Item = ReturnType<typeof item>;
  const byGroupAndKey = { groupOf: (it: Item) => it.group, keyOf: (it: Item) => it.key };

  it('lets each group hold at most its share of the slots and of the waiting, and serves groups in turn', async () => {
    const order: string[] = [];
    const queue = createWorkQueue<Item>(
      fair,
      async (it) => {
        order.push(`${it.group}${it.n}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      },
      noReports,
      byGroupAndKey,
    );
    // The flood's fourth waiting item is refused; the others' items are not.
    const flood = [1, 2, 3, 4, 5].map((n) => queue.add(item('a', `a${n}`, n)));
    expect(flood).toEqual([true, true, true, true, false]);
    expect(queue.add(item('b', 'b1', 1))).toBe(true);
    expect(queue.add(item('c', 'c1', 1))).toBe(true);
    await queue.drained(5000);
    // a1 started alone; b and c did not wait behind a's other items.
    expect(order.slice(0, 3)).toEqual(['a1', 'b1', 'c1']);
    expect(order).toHaveLength(6);
  });

  it('runs one item per key at a time', async () => {
    let running = 0;
    let most = 0;
    const queue = createWorkQueue<Item>(
      { ...fair, perGroup: { concurrent: 3, queued: 10 } },
      async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 10));
        running--;
      },
      noReports,
      byGroupAndKey,
    );
    for (let n = 0; n < 4; n++) queue.add(item('a', 'same-client', n));
    await queue.drained(5000);
    expect(most).toBe(1);
  });

  it('gives the slot up while a failed item waits for its retry, and does not retry what is not worth it', async () => {
    const started: string[] = [];
    const failed: string[] = [];
    const queue = createWorkQueue<Item>(
      { ...fair, concurrent: 1, perGroup: { concurrent: 1, queued: 10 } },
      async (it, attempt) => {
        started.push(`${it.key}#${attempt}`);
        if (it.key === 'flaky' && attempt === 1) throw new Error('once');
        if (it.key === 'final') throw new Error('never worth another try');
      },
      { retried: () => undefined, failed: (it) => failed.push(it.key) },
      { ...byGroupAndKey, retryable: (err) => (err as Error).message !== 'never worth another try' },
    );
    queue.add(item('a', 'flaky', 1));
    queue.add(item('b', 'other', 1));
    queue.add(item('c', 'final', 1));
    await queue.drained(5000);
    // While flaky paused before its retry, the one slot served the others.
    expect(started).toEqual(['flaky#1', 'other#1', 'final#1', 'flaky#2']);
    expect(failed).toEqual(['final']);
    expect(queue.pending).toBe(0);
  });
});
