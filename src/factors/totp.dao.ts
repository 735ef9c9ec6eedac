// The only importer of the TOTP models.
import type { Sealed } from '../common/crypto';
import { isDuplicateKeyError } from '../db/duplicate-key';
import { withRecordLock } from '../db/record-lock';
import { TotpModel, type TotpDocument } from './totp.model';

export function find(userId: string): Promise<TotpDocument | null> {
  return TotpModel.findById(userId).lean<TotpDocument>().exec();
}

// Enrolment's two writes take the account's lock: a new key replaces a waiting one by a read, a delete
// and an insert, and the first code turns on the key it was checked against by a read and an update.
// Without the lock, a key that expired as its code arrived could be turned on and then deleted (the app
// reported on, then off), or its replacement turned on (a key nobody scanned).
const locked = <T>(userId: string, work: () => Promise<T>) => withRecordLock(`totp:${userId}`, work);

/** A new secret waiting for its first code; a confirmed one is never replaced here. */
export function replacePending(userId: string, secret: Sealed, now: Date): Promise<boolean> {
  return locked(userId, async () => {
    const stored = await find(userId);
    if (stored?.confirmedAt) return false;
    if (stored) await TotpModel.deleteOne({ _id: userId }).exec();
    try {
      await TotpModel.create({ _id: userId, secret, createdAt: now });
      return true;
    } catch (err) {
      // A holder whose lease ran out put another enrolment's secret in meanwhile.
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  });
}

/** Turns on the waiting secret `shown` (the one the first code was checked against); false when it is not the one stored. */
export function confirm(userId: string, shown: Sealed, now: Date): Promise<boolean> {
  return locked(userId, async () => {
    const stored = await find(userId);
    // A seal's IV is random: the same IV is the same sealing of the same key.
    if (!stored || stored.confirmedAt || stored.secret.iv !== shown.iv) return false;
    await TotpModel.updateOne({ _id: userId }, { $set: { confirmedAt: now } }).exec();
    return true;
  });
}

export async function remove(userId: string): Promise<boolean> {
  return (await TotpModel.deleteOne({ _id: userId }).exec()).deletedCount === 1;
}

/** Removes the account's app if it was turned on at or after `since` (read, then deleted by `_id`); whether it was. */
export async function removeConfirmedSince(userId: string, since: Date): Promise<boolean> {
  const stored = await find(userId);
  if (!stored?.confirmedAt || stored.confirmedAt < since) return false;
  return (await TotpModel.deleteOne({ _id: userId }).exec()).deletedCount === 1;
}
