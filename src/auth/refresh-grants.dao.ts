import { RefreshGrantModel, type RefreshGrantDocument } from './refresh-grant.model';

export async function insert(grant: RefreshGrantDocument): Promise<void> {
  await RefreshGrantModel.create(grant);
}

/**
 * Deletes and returns the grant only if every field matches and it has not expired. The delete is
 * the check, so of two concurrent uses of one refresh token exactly one gets the grant.
 */
export function consume(refreshKey: string, userId: string, tokenHash: string, now: Date): Promise<RefreshGrantDocument | null> {
  return RefreshGrantModel.findOneAndDelete({ _id: refreshKey, userId, tokenHash, expiresAt: { $gt: now } })
    .lean<RefreshGrantDocument>()
    .exec();
}

export async function removeExpired(now: Date): Promise<void> {
  await RefreshGrantModel.deleteMany({ expiresAt: { $lte: now } }).exec();
}
