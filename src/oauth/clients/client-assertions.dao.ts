// The only user of the used-JWT model.
import { trusted } from 'mongoose';
import { isDuplicateKeyError } from '../../db/duplicate-key';
import { UsedJwtModel } from './client-assertions.model';

/** Records the use; false when it was used before (here or on another instance). */
export async function markUsed(id: string, expiresAt: Date): Promise<boolean> {
  try {
    await UsedJwtModel.create({ _id: id, expiresAt });
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

export async function deleteExpired(now: Date): Promise<void> {
  await UsedJwtModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
}
