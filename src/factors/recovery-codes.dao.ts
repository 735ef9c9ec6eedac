// The only importer of the recovery code model. A person's codes are found through the list of their
// ids (db/owner-lists.ts); a code by its id, the hash of the person and the code: reads by _id alone.
import { ownerLists } from '../db/owner-lists';
import { RecoveryCodeModel } from './recovery-codes.model';

const lists = ownerLists('recovery-codes');

const deleteAll = async (ids: string[]) => {
  if (ids.length > 0) await RecoveryCodeModel.bulkWrite(ids.map((id) => ({ deleteOne: { filter: { _id: id } } })));
};

export async function replaceAll(userId: string, ids: string[]): Promise<void> {
  await lists.change(userId, async (old) => {
    await deleteAll(old);
    const createdAt = new Date();
    await RecoveryCodeModel.insertMany(ids.map((_id) => ({ _id, userId, createdAt })));
    return { ids, result: undefined };
  });
}

/** Deletes the code; true for the one caller that deleted it. */
export async function take(id: string): Promise<boolean> {
  return (await RecoveryCodeModel.deleteOne({ _id: id }).exec()).deletedCount === 1;
}

/** How many of the person's codes are left (each read by its id). */
export async function countFor(userId: string): Promise<number> {
  const left = await Promise.all((await lists.of(userId)).map((id) => RecoveryCodeModel.exists({ _id: id }).exec()));
  return left.filter(Boolean).length;
}

export async function deleteFor(userId: string): Promise<void> {
  await lists.change(userId, async (ids) => {
    await deleteAll(ids);
    return { ids: [], result: undefined };
  });
}

/** Lists the codes stored before lists existed, by their owners (a migration, src/migrations.ts). */
export async function listExisting(): Promise<number> {
  const byOwner = new Map<string, string[]>();
  for await (const code of RecoveryCodeModel.find({}, { userId: 1 }).lean<{ _id: string; userId: string }>().cursor()) {
    const ids = byOwner.get(code.userId) ?? [];
    ids.push(code._id);
    byOwner.set(code.userId, ids);
  }
  for (const [owner, ids] of byOwner) await lists.seed(owner, ids);
  return byOwner.size;
}
