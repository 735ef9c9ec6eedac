// The only importer of the recovery code model.
import { RecoveryCodeModel } from './recovery-codes.model';

export async function replaceAll(userId: string, ids: string[]): Promise<void> {
  await RecoveryCodeModel.deleteMany({ userId }).exec();
  const createdAt = new Date();
  await RecoveryCodeModel.insertMany(ids.map((_id) => ({ _id, userId, createdAt })));
}

/** Deletes the code; true for the one caller that deleted it. */
export async function take(id: string): Promise<boolean> {
  return (await RecoveryCodeModel.deleteOne({ _id: id }).exec()).deletedCount === 1;
}

export function countFor(userId: string): Promise<number> {
  return RecoveryCodeModel.countDocuments({ userId }).exec();
}

export async function deleteFor(userId: string): Promise<void> {
  await RecoveryCodeModel.deleteMany({ userId }).exec();
}
