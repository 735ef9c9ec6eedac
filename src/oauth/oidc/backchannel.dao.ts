// The only user of the session-client model.
import { trusted } from 'mongoose';
import { sha256 } from '../../common/crypto';
import { isDuplicateKeyError } from '../../db/duplicate-key';
import { SessionClientModel, type SessionClientDocument } from './backchannel.model';

/** Records that the client got a grant in the session; a repeat changes nothing. */
export async function remember(sid: string, userId: string, clientId: string): Promise<void> {
  try {
    await SessionClientModel.create({ _id: sha256(`${sid} ${clientId}`), sid, userId, clientId, createdAt: new Date() });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/**
 * Takes the records that match: each is deleted by its id, and only the ones this call deleted are
 * returned, so two instances ending the same session notify each client once between them.
 */
export async function take(filter: { sid: string } | { userId: string }): Promise<SessionClientDocument[]> {
  const found = await SessionClientModel.find(filter).lean<SessionClientDocument[]>().exec();
  const taken = await Promise.all(
    found.map(async (record) => ((await SessionClientModel.deleteOne({ _id: record._id }).exec()).deletedCount === 1 ? record : null)),
  );
  return taken.filter((record): record is SessionClientDocument => record !== null);
}

export async function deleteOlderThan(date: Date): Promise<void> {
  await SessionClientModel.deleteMany({ createdAt: trusted({ $lt: date }) }).exec();
}
