// The only importer of the account link model.
import { mongo, trusted } from 'mongoose';
import { upsertRacing } from '../db/duplicate-key';
import { AccountLinkModel, type AccountLinkDocument } from './account-links.model';
import type { LinkPurpose } from './account.rules';

/**
 * Which of a person's links for a purpose is the newest (the only one that works): a record beside
 * the links, `newest:<purpose>:<userId>`, naming it, read by `_id` (a search of the person's links
 * by date would read the whole collection on FerretDB). It lapses with the link.
 */
interface NewestDocument {
  _id: string;
  linkId: string;
  expiresAt: Date;
}

const newestId = (userId: string, purpose: LinkPurpose) => `newest:${purpose}:${userId}`;
const raw = () => AccountLinkModel.collection as unknown as mongo.Collection<NewestDocument>;

/** Stores the link as the person's newest for its purpose: any older one stops working. */
export async function insert(link: AccountLinkDocument): Promise<void> {
  await AccountLinkModel.create(link);
  const _id = newestId(link.userId, link.purpose);
  // Two links at once (reset mails prepared after their answers overlap) both try to insert the record.
  await upsertRacing(() => raw().updateOne({ _id }, { $set: { linkId: link._id, expiresAt: link.expiresAt } }, { upsert: true }));
}

export function find(id: string): Promise<AccountLinkDocument | null> {
  return AccountLinkModel.findById(id).lean<AccountLinkDocument>().exec();
}

/** Deletes the link; true for the one caller that deleted it (of any number at once). */
export async function take(id: string): Promise<boolean> {
  const result = await AccountLinkModel.deleteOne({ _id: id }).exec();
  return result.deletedCount === 1;
}

/** Whether a newer link for the same purpose was sent to the person since this one (which it makes dead). */
export async function hasNewer(link: Pick<AccountLinkDocument, '_id' | 'userId' | 'purpose'>): Promise<boolean> {
  const newest = await raw().findOne({ _id: newestId(link.userId, link.purpose) });
  return newest !== null && newest.linkId !== link._id;
}

export async function deleteExpired(now: Date): Promise<void> {
  await AccountLinkModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
}
