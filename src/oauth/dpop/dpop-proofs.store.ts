// The record of DPoP proofs seen: using a proof is inserting its record, and the unique _id makes the
// second use fail on MongoDB and FerretDB alike, on one instance or many. Expired records are swept.
import { trusted } from 'mongoose';
import { sha256 } from '../../common/crypto';
import { isDuplicateKeyError } from '../../db/duplicate-key';
import { throttled } from '../../db/sweeper';
import { SeenProofModel } from './dpop-proofs.model';

const sweepExpired = throttled(60_000, async (now) => {
  await SeenProofModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
});

/** Records the proof of this key with this jti; false when it was used before. */
export async function firstUse(jkt: string, jti: string, keepUntil: Date, now: Date): Promise<boolean> {
  try {
    await SeenProofModel.collection.insertOne({ _id: sha256(`${jkt}:${jti}`) as never, expiresAt: keepUntil });
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
  sweepExpired(now);
  return true;
}
