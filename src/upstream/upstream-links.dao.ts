// The only importer of the upstream link model.
import { UpstreamLinkModel, type UpstreamLinkDocument } from './upstream-links.model';

export const linkId = (provider: string, subject: string): string => `${provider} ${subject}`;

export function find(provider: string, subject: string): Promise<UpstreamLinkDocument | null> {
  return UpstreamLinkModel.findById(linkId(provider, subject)).lean<UpstreamLinkDocument>().exec();
}

/** Inserts the link; a duplicate key error when the account or the person is linked already. */
export async function insert(link: Omit<UpstreamLinkDocument, '_id'>): Promise<void> {
  await UpstreamLinkModel.create({ _id: linkId(link.provider, link.subject), ...link });
}

/** The person's links (a handful at most: one per configured provider). */
export function listForUser(userId: string): Promise<UpstreamLinkDocument[]> {
  return UpstreamLinkModel.find({ userId }).sort({ provider: 1 }).limit(100).lean<UpstreamLinkDocument[]>().exec();
}

export async function countForUser(userId: string): Promise<number> {
  return UpstreamLinkModel.countDocuments({ userId }).exec();
}

/** True for the one caller that removed it. */
export async function remove(userId: string, provider: string): Promise<boolean> {
  const result = await UpstreamLinkModel.deleteOne({ userId, provider }).exec();
  return result.deletedCount === 1;
}

/** A link whose person no longer exists. */
export async function removeById(provider: string, subject: string): Promise<void> {
  await UpstreamLinkModel.deleteOne({ _id: linkId(provider, subject) }).exec();
}
