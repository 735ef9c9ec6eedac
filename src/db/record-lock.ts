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

/** Runs `work` while holding the lock named `key`. */
export async function withRecordLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const holder = randomBytes(12).toString('base64url');
  await acquire(key, holder);
  try {
    return await work();
  } finally {
    await LockModel.deleteOne({ _id: holder }).exec();
  }
}
