import { sameText } from '../common/cookies';
import { expiringCollection } from '../db/expiry-journal';
import { RefreshGrantModel, type RefreshGrantDocument } from './refresh-grants.model';

// One a sign-in at POST /auth, kept 10 hours: deleted through the expiry journal, never by a query.
const journal = expiringCollection({
  name: RefreshGrantModel.collection.collectionName,
  existing: { fields: { expiresAt: 1 }, expiryOf: (record) => record.expiresAt as Date },
});

export async function insert(grant: RefreshGrantDocument): Promise<void> {
  await RefreshGrantModel.create(grant);
  journal.add(grant._id, grant.expiresAt);
}

/**
 * Deletes and returns the grant only if every field matches and it has not expired: read by its id,
 * checked here, then deleted by its id alone (the one filter FerretDB answers without reading the whole
 * collection). The delete's count decides: of several concurrent uses of one refresh token exactly
 * one deletes the grant. (FerretDB 1.x runs findOneAndDelete as a find followed by a delete, so it
 * cannot decide alone.)
 */
export async function consume(refreshKey: string, userId: string, tokenHash: string, now: Date): Promise<RefreshGrantDocument | null> {
  const grant = await RefreshGrantModel.findById(refreshKey).lean<RefreshGrantDocument>().exec();
  if (!grant || grant.userId !== userId || !sameText(grant.tokenHash, tokenHash) || grant.expiresAt <= now) return null;
  const { deletedCount } = await RefreshGrantModel.deleteOne({ _id: refreshKey }).exec();
  return deletedCount === 1 ? grant : null;
}
