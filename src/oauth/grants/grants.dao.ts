// The only importer of the grant model; returns plain objects.
import { trusted } from 'mongoose';
import { GrantModel, type GrantDocument } from './grants.model';
import { upsertRacing } from '../../db/duplicate-key';

const grantId = (userId: string, clientId: string) => `${userId}:${clientId}`;

/** Adds scopes to the person's grant for the client, creating it the first time; every scope it now holds. */
export async function addScopes(userId: string, clientId: string, scope: readonly string[], now: Date): Promise<string[]> {
  const grant = await upsertRacing(() =>
    GrantModel.findOneAndUpdate(
      { _id: grantId(userId, clientId) },
      { $addToSet: { scope: { $each: [...scope] } }, $set: { lastUsedAt: now }, $setOnInsert: { userId, clientId, firstGrantedAt: now } },
      { upsert: true, returnDocument: 'after' },
    )
      .lean<Pick<GrantDocument, 'scope'>>()
      .exec(),
  );
  return grant?.scope ?? [...scope];
}

export function find(userId: string, clientId: string): Promise<GrantDocument | null> {
  return GrantModel.findById(grantId(userId, clientId)).lean<GrantDocument>().exec();
}

/** One page of the person's grants, oldest first. */
export function listForUser(userId: string, page: number, limit: number): Promise<GrantDocument[]> {
  return GrantModel.find({ userId })
    .sort({ firstGrantedAt: 1, _id: 1 })
    .skip(page * limit)
    .limit(limit)
    .lean<GrantDocument[]>()
    .exec();
}

/** The grants given to a client, in person order after `afterUserId`, `limit` of them. */
export function pageForClient(clientId: string, afterUserId: string | undefined, limit: number): Promise<GrantDocument[]> {
  const query = afterUserId === undefined ? { clientId } : { clientId, _id: trusted({ $gt: grantId(afterUserId, clientId) }) };
  return GrantModel.find(query).sort({ _id: 1 }).limit(limit).lean<GrantDocument[]>().exec();
}

export async function touch(userId: string, clientId: string, now: Date): Promise<void> {
  await GrantModel.updateOne({ _id: grantId(userId, clientId) }, { $set: { lastUsedAt: now } }).exec();
}

/** false when the person had no grant for the client. */
export async function remove(userId: string, clientId: string): Promise<boolean> {
  const { deletedCount } = await GrantModel.deleteOne({ _id: grantId(userId, clientId) }).exec();
  return deletedCount === 1;
}

export async function removeForUser(userId: string): Promise<void> {
  await GrantModel.deleteMany({ userId }).exec();
}

export async function removeForClient(clientId: string): Promise<void> {
  await GrantModel.deleteMany({ clientId }).exec();
}

/** How many people granted the client something. */
export function countForClient(clientId: string): Promise<number> {
  return GrantModel.countDocuments({ clientId }).exec();
}
