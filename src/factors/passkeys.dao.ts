// The only importer of the passkey and challenge models. A person's passkeys are found through the
// list of their ids (db/owner-lists.ts), a passkey by its credential id: reads by _id alone.
import { trusted } from 'mongoose';
import { ownerLists } from '../db/owner-lists';
import { ChallengeModel, PasskeyModel, type ChallengeDocument, type PasskeyDocument } from './passkeys.model';

const lists = ownerLists('passkeys');

export function find(id: string): Promise<PasskeyDocument | null> {
  return PasskeyModel.findById(id).lean<PasskeyDocument>().exec();
}

/** The person's passkeys, oldest first. */
export async function listFor(userId: string): Promise<PasskeyDocument[]> {
  const found = await Promise.all((await lists.of(userId)).map(find));
  return found
    .filter((passkey): passkey is PasskeyDocument => passkey?.userId === userId)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : 1));
}

export async function countFor(userId: string): Promise<number> {
  return (await lists.of(userId)).length;
}

export async function insert(passkey: PasskeyDocument): Promise<void> {
  await lists.change(passkey.userId, async (ids) => {
    await PasskeyModel.create(passkey);
    return { ids: [...ids, passkey._id], result: undefined };
  });
}

export async function recordUse(id: string, counter: number): Promise<void> {
  await PasskeyModel.updateOne({ _id: id }, { $set: { counter, lastUsedAt: new Date() } }).exec();
}

/** The person's own passkey, or null (another's, or none). */
async function own(userId: string, id: string): Promise<PasskeyDocument | null> {
  const passkey = await find(id);
  return passkey?.userId === userId ? passkey : null;
}

export async function rename(userId: string, id: string, name: string): Promise<boolean> {
  if (!(await own(userId, id))) return false;
  return (await PasskeyModel.updateOne({ _id: id }, { $set: { name } }).exec()).matchedCount === 1;
}

export async function remove(userId: string, id: string): Promise<boolean> {
  return lists.change(userId, async (ids) => {
    const removed = (await own(userId, id)) !== null && (await PasskeyModel.deleteOne({ _id: id }).exec()).deletedCount === 1;
    return { ids: ids.filter((listed) => listed !== id), result: removed };
  });
}

export async function insertChallenge(challenge: ChallengeDocument): Promise<void> {
  await ChallengeModel.create(challenge);
}

/** Takes the challenge: the one caller (of any number at once) that deleted it gets it. */
export async function takeChallenge(id: string): Promise<ChallengeDocument | null> {
  const found = await ChallengeModel.findById(id).lean<ChallengeDocument>().exec();
  if (!found) return null;
  return (await ChallengeModel.deleteOne({ _id: id }).exec()).deletedCount === 1 ? found : null;
}

export async function deleteExpiredChallenges(now: Date): Promise<void> {
  await ChallengeModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
}

/** Removes the account's passkeys registered at or after `since`; how many. */
export async function removeCreatedSince(userId: string, since: Date): Promise<number> {
  return lists.change(userId, async () => {
    const passkeys = await listFor(userId);
    const going = passkeys.filter((passkey) => passkey.createdAt >= since).map((passkey) => passkey._id);
    if (going.length > 0) await PasskeyModel.bulkWrite(going.map((id) => ({ deleteOne: { filter: { _id: id } } })));
    return { ids: passkeys.filter((passkey) => passkey.createdAt < since).map((passkey) => passkey._id), result: going.length };
  });
}

/** Lists the passkeys stored before lists existed, by their owners (a migration, src/migrations.ts). */
export async function listExisting(): Promise<number> {
  const byOwner = new Map<string, string[]>();
  for await (const passkey of PasskeyModel.find({}, { userId: 1, createdAt: 1 }).sort({ createdAt: 1 }).lean<PasskeyDocument>().cursor()) {
    const ids = byOwner.get(passkey.userId) ?? [];
    ids.push(passkey._id);
    byOwner.set(passkey.userId, ids);
  }
  for (const [owner, ids] of byOwner) await lists.seed(owner, ids);
  return byOwner.size;
}
