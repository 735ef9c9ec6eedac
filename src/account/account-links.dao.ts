// The only importer of the account link model.
import { trusted } from 'mongoose';
import { AccountLinkModel, type AccountLinkDocument } from './account-links.model';
import type { LinkPurpose } from './account.rules';

export async function insert(link: AccountLinkDocument): Promise<void> {
  await AccountLinkModel.create(link);
}

export function find(id: string): Promise<AccountLinkDocument | null> {
  return AccountLinkModel.findById(id).lean<AccountLinkDocument>().exec();
}

/** Deletes the link; true for the one caller that deleted it (of any number at once). */
export async function take(id: string): Promise<boolean> {
  const result = await AccountLinkModel.deleteOne({ _id: id }).exec();
  return result.deletedCount === 1;
}

/** The user's links for this purpose sent after the given moment (a newer link makes older ones dead). */
export function existsNewer(userId: string, purpose: LinkPurpose, createdAt: Date): Promise<boolean> {
  return AccountLinkModel.exists({ userId, purpose, createdAt: trusted({ $gt: createdAt }) }).then((found) => found !== null);
}

/** Deletes the user's other links for this purpose. */
export async function deleteOthers(userId: string, purpose: LinkPurpose, keptId: string): Promise<void> {
  await AccountLinkModel.deleteMany({ userId, purpose, _id: trusted({ $ne: keptId }) }).exec();
}

export async function deleteExpired(now: Date): Promise<void> {
  await AccountLinkModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
}
