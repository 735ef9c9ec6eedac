// The only importer of the signing key model; returns plain objects.
import { trusted } from 'mongoose';
import { SigningKeyModel, type SigningKeyDocument } from './signing-keys.model';

export async function insert(key: SigningKeyDocument): Promise<void> {
  await SigningKeyModel.create(key);
}

/** Keys still published at `now`, newest first. */
export function listPublished(now: Date): Promise<SigningKeyDocument[]> {
  return SigningKeyModel.find({ $or: [{ publishUntil: trusted({ $exists: false }) }, { publishUntil: trusted({ $gt: now }) }] })
    .sort({ createdAt: -1, _id: -1 })
    .lean<SigningKeyDocument[]>()
    .exec();
}

/** Retires every current key but `kids`; they stay published until `publishUntil`. */
export async function retireAllBut(kids: string[], now: Date, publishUntil: Date): Promise<void> {
  await SigningKeyModel.updateMany(
    { _id: trusted({ $nin: kids }), retiredAt: trusted({ $exists: false }) },
    { $set: { retiredAt: now, publishUntil } },
  ).exec();
}

export async function deleteExpired(now: Date): Promise<void> {
  await SigningKeyModel.deleteMany({ publishUntil: trusted({ $lte: now }) }).exec();
}
