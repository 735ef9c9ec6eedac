// Serialises read-modify-write updates of one record, across requests and server instances. FerretDB
// 1.x applies an update by reading the document and writing it back whole, so two concurrent updates
// can lose one another ($inc included); an insert into a unique field is atomic on every engine, so a
// lock document decides who goes. A lock left by a dead holder is taken over once its lease runs out.
// A lock's id is its holder's: FerretDB deletes by filter as a read and then a delete by id, so
// clearing a lapsed lease, or a holder's release, never deletes the lock another holder took since.
import { trusted } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { isDuplicateKeyError } from './duplicate-key';
import { LockModel } from './record-lock.model';

const LEASE_MS = 10_000;
const MAX_ATTEMPTS = 400;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function acquire(key: string, holder: string): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const now = new Date();
    try {
      await LockModel.create({ _id: holder, name: key, expiresAt: new Date(now.getTime() + LEASE_MS) });
      return;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    await LockModel.deleteMany({ name: key, expiresAt: trusted({ $lte: now }) }).exec();
    // Short, jittered waits: updates under the lock take milliseconds.
    await pause(Math.min(50, 2 + attempt) * (0.5 + Math.random()));
  }
  throw new Error(`record ${key} stayed locked for too long`);
}

/**
 * The end of this process's line for each lock: callers here wait their turn in memory, so the
 * database sees at most one of them racing for the lock (100 at once were 100 pollers, each a write
 * and a read of the locks every few milliseconds, and took seconds to pass the lock along).
 */
// eslint-disable-next-line no-restricted-syntax -- not a cache: the process's waiters, whichever app they come from.
const lines = new Map<string, Promise<void>>();

/** Runs `work` while holding the lock named `key`. */
export async function withRecordLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = lines.get(key) ?? Promise.resolve();
  let leave!: () => void;
  const gate = new Promise<void>((resolve) => (leave = resolve));
  const end = before.then(() => gate);
  lines.set(key, end);
  try {
    await before;
    const holder = randomBytes(12).toString('base64url');
    await acquire(key, holder);
    try {
      return await work();
    } finally {
      await LockModel.deleteOne({ _id: holder }).exec();
    }
  } finally {
    leave();
    if (lines.get(key) === end) lines.delete(key);
  }
}
