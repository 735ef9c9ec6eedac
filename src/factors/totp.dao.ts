// The only importer of the TOTP models.
import type { Sealed } from '../common/crypto';
import { isDuplicateKeyError } from '../db/duplicate-key';
import { TotpModel, type TotpDocument } from './totp.model';

export function find(userId: string): Promise<TotpDocument | null> {
  return TotpModel.findById(userId).lean<TotpDocument>().exec();
}

/**
 * A new secret waiting for its first code; a confirmed one is never replaced here. Read by `_id`, then
 * written by `_id` (the filter every engine keys): a pending one is deleted and the new one inserted,
 * so a confirmation between the two is never written over (the insert then collides with it).
 */
export async function replacePending(userId: string, secret: Sealed, now: Date): Promise<boolean> {
  const stored = await find(userId);
  if (stored?.confirmedAt) return false;
  if (stored) await TotpModel.deleteOne({ _id: userId }).exec();
  try {
    await TotpModel.create({ _id: userId, secret, createdAt: now });
    return true;
  } catch (err) {
    // Another enrolment's secret, or a confirmed one, went in meanwhile.
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

export async function confirm(userId: string, now: Date): Promise<void> {
  await TotpModel.updateOne({ _id: userId }, { $set: { confirmedAt: now } }).exec();
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
