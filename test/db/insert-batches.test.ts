// Group commit: the first record is written at once, records that arrive meanwhile go together in the
// next write, at most maxBatch at a time, and a failed write fails only the records it carried.
import { insertBatches } from '../../src/db/insert-batches';

/** A store that holds each write open until released, recording what each carried. */
function heldStore(failOn?: (records: number[]) => boolean) {
  const writes: number[][] = [];
  const releases: (() => void)[] = [];
  const insertMany = (records: number[]) =>
    new Promise<void>((resolve, reject) => {
      writes.push(records);
      releases.push(() => (failOn?.(records) ? reject(new Error('write failed')) : resolve()));
    });
  const releaseNext = async () => {
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { writes, insertMany, releaseNext };
}

it('writes the first record at once, and those that arrive meanwhile together in the next write', async () => {
  const store = heldStore();
  const insert = insertBatches(store.insertMany, 100);
  const first = insert(1);
  expect(store.writes).toEqual([[1]]);
  const rest = [2, 3, 4].map((record) => insert(record));
  expect(store.writes).toHaveLength(1);
  await store.releaseNext();
  await expect(first).resolves.toBeUndefined();
  expect(store.writes).toEqual([[1], [2, 3, 4]]);
  await store.releaseNext();
  await expect(Promise.all(rest)).resolves.toEqual([undefined, undefined, undefined]);
  // Idle again: the next record is written at once.
  void insert(5);
  expect(store.writes[2]).toEqual([5]);
});

it('carries at most maxBatch records per write', async () => {
  const store = heldStore();
  const insert = insertBatches(store.insertMany, 2);
  const all = [1, 2, 3, 4, 5, 6].map((record) => insert(record));
  for (let i = 0; i < 4; i++) await store.releaseNext();
  await Promise.all(all);
  expect(store.writes).toEqual([[1], [2, 3], [4, 5], [6]]);
});

it('fails only the records of a failed write, and goes on with the next', async () => {
  const store = heldStore((records) => records.includes(2));
  const insert = insertBatches(store.insertMany, 100);
  const first = insert(1);
  // Settled outcomes, caught as they happen.
  const failed = [insert(2), insert(3)].map((outcome) =>
    outcome.then(
      () => 'written',
      (err: Error) => err.message,
    ),
  );
  await store.releaseNext();
  const later = insert(4);
  await store.releaseNext();
  await store.releaseNext();
  await expect(first).resolves.toBeUndefined();
  expect(await Promise.all(failed)).toEqual(['write failed', 'write failed']);
  await expect(later).resolves.toBeUndefined();
  expect(store.writes).toEqual([[1], [2, 3], [4]]);
});
