// The only importer of the TOTP models.
import { trusted } from 'mongoose';
import type { Sealed } from '../common/crypto';
import { isDuplicateKeyError } from '../db/duplicate-key';
import { TotpModel, type TotpDocument } from './totp.model';

export function find(userId: string): Promise<TotpDocument | null> {
  return TotpModel.findById(userId).lean<TotpDocument>().exec();
}

/** A new secret waiting for its first code; a confirmed one is never replaced here. */
export async function replacePending(userId: string, secret: Sealed, now: Date): Promise<boolean> {
  const result = await TotpModel.updateOne(
    { _id: userId, confirmedAt: trusted({ $exists: false }) },
    { $set: { secret, createdAt: now } },
    { upsert: true },
  )
    .exec()
    .catch((err: unknown) => {
      // A confirmed secret exists (the upsert collided with it).
      if (isDuplicateKeyError(err)) return { upsertedCount: 0, modifiedCount: 0 };
      throw err;
    });
  return result.upsertedCount + result.modifiedCount === 1;
}

export async function confirm(userId: string, now: Date): Promise<void> {
  await TotpModel.updateOne({ _id: userId }, { $set: { confirmedAt: now } }).exec();
}

export async function remove(userId: string): Promise<boolean> {
  return (await TotpModel.deleteOne({ _id: userId }).exec()).deletedCount === 1;
}

/** Removes the account's app if it was turned on at or after `since`; whether it was. */
export async function removeConfirmedSince(userId: string, since: Date): Promise<boolean> {
  return (await TotpModel.deleteOne({ _id: userId, confirmedAt: trusted({ $gte: since }) }).exec()).deletedCount === 1;
}
