import { trusted } from 'mongoose';
import { RefreshGrantModel, type RefreshGrantDocument } from './refresh-grants.model';

// sanitizeFilter is on globally; trusted() marks the operators written here, never client input.

export async function insert(grant: RefreshGrantDocument): Promise<void> {
  await RefreshGrantModel.create(grant);
}

/**
 * Deletes and returns the grant only if every field matches and it has not expired. The delete's
 * count decides: of several concurrent uses of one refresh token exactly one deletes the grant.
 * (FerretDB 1.x runs findOneAndDelete as a find followed by a delete, so it cannot decide alone.)
 */
export async function consume(refreshKey: string, userId: string, tokenHash: string, now: Date): Promise<RefreshGrantDocument | null> {
  const grant = await RefreshGrantModel.findOne({ _id: refreshKey, userId, tokenHash, expiresAt: trusted({ $gt: now }) })
    .lean<RefreshGrantDocument>()
    .exec();
  if (!grant) return null;
  const { deletedCount } = await RefreshGrantModel.deleteOne({ _id: refreshKey, tokenHash }).exec();
  return deletedCount === 1 ? grant : null;
}

export async function removeExpired(now: Date): Promise<void> {
  await RefreshGrantModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
}

export async function removeForUser(userId: string): Promise<void> {
  await RefreshGrantModel.deleteMany({ userId }).exec();
}
