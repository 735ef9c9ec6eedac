// The only user of the session-clients model: every read by `_id` (the session's record, the person's
// list of sessions). A session's record changes only under its lock, and a person's list under the
// list's (FerretDB writes an update back as the document it read); locks are taken session first.
import mongoose from 'mongoose';
import { expiringCollection } from '../../db/expiry-journal';
import { ownerLists } from '../../db/owner-lists';
import { withRecordLock } from '../../db/record-lock';
import { PAIRS_COLLECTION, SessionClientsModel, type SessionClientsDocument } from './backchannel.model';

/** What a session's end is told to: one client of one session. */
export interface SessionClient {
  sid: string;
  userId: string;
  clientId: string;
}

export const BACKCHANNEL_RECORD_LIMITS = {
  /** A remembered session can be open for 30 days at most (remember me): its record is deleted after this. */
  lifetimeMs: 31 * 24 * 3600_000,
  /** Clients remembered for one session; past it the earliest is forgotten (it hears nothing). */
  clientsPerSession: 100,
  /**
   * Sessions listed for one person. A session that ends by sign-out leaves the list; one that lapsed
   * stays until a new password or the oldest are dropped past this (its record is swept after its lifetime).
   */
  sessionsPerPerson: 100,
} as const;

const sessionsOf = ownerLists('backchannel-sessions');
/** Records are deleted through the expiry journal (db/expiry-journal.ts) once no session could still be open. */
const expiring = expiringCollection({ name: SessionClientsModel.collection.collectionName });
const read = (sid: string) => SessionClientsModel.findById(sid).lean<SessionClientsDocument>().exec();
const lockOf = (sid: string) => `backchannel-session:${sid}`;
const pairsOf = (record: SessionClientsDocument): SessionClient[] =>
  record.clientIds.map((clientId) => ({ sid: record._id, userId: record.userId, clientId }));

/** Records that the client got a grant in the session; a repeat changes nothing (and takes no lock). */
export async function remember(sid: string, userId: string, clientId: string, createdAt: Date): Promise<void> {
  if ((await read(sid))?.clientIds.includes(clientId)) return;
  await withRecordLock(lockOf(sid), async () => {
    const record = await read(sid);
    if (record?.clientIds.includes(clientId)) return;
    if (record) {
      const clientIds = [...record.clientIds, clientId].slice(-BACKCHANNEL_RECORD_LIMITS.clientsPerSession);
      await SessionClientsModel.updateOne({ _id: sid }, { $set: { clientIds } }).exec();
      return;
    }
    // Listed first: a new password that reads the list once the record exists finds it.
    await sessionsOf.change(userId, async (sids) => ({
      ids: [...sids.filter((listed) => listed !== sid), sid].slice(-BACKCHANNEL_RECORD_LIMITS.sessionsPerPerson),
      result: undefined,
    }));
    await SessionClientsModel.create({ _id: sid, userId, clientIds: [clientId], createdAt });
    expiring.add(sid, new Date(createdAt.getTime() + BACKCHANNEL_RECORD_LIMITS.lifetimeMs));
  });
}

/** Takes the session's record under its lock; `unlist`: and takes the session off its person's list. */
async function take(sid: string, unlist: boolean): Promise<SessionClient[]> {
  if (!(await read(sid))) return [];
  const taken = await withRecordLock(lockOf(sid), async () => {
    const record = await read(sid);
    if (!record || (await SessionClientsModel.deleteOne({ _id: sid }).exec()).deletedCount !== 1) return null;
    if (unlist)
      await sessionsOf.change(record.userId, async (sids) => ({ ids: sids.filter((listed) => listed !== sid), result: undefined }));
    return record;
  });
  return taken ? pairsOf(taken) : [];
}

/**
 * Takes the session's record: deleted under its lock, so two instances ending the same session
 * notify each client once between them. Nothing (and no lock) for a session no client is to hear of.
 */
export const takeSession = (sid: string): Promise<SessionClient[]> => take(sid, true);

/** Takes every listed session of the person (a new password, a deleted account), then lists none of them, lapsed ones included. */
export async function takePerson(userId: string): Promise<SessionClient[]> {
  const sids = await sessionsOf.of(userId);
  if (sids.length === 0) return [];
  const taken = await Promise.all(sids.map((sid) => take(sid, false)));
  await sessionsOf.change(userId, async (listed) => ({ ids: listed.filter((sid) => !sids.includes(sid)), result: undefined }));
  return taken.flat();
}

/**
 * Migration: the records kept one per session and client before (found by sid or userId) become one
 * per session, listed for their person; each is deleted once carried over, so a run cut short resumes.
 */
export async function regroupPairs(): Promise<number> {
  const pairs = mongoose.connection.collection<{ _id: string; sid: string; userId: string; clientId: string; createdAt: Date }>(
    PAIRS_COLLECTION,
  );
  let moved = 0;
  for await (const pair of pairs.find({}).sort({ createdAt: 1 })) {
    await remember(pair.sid, pair.userId, pair.clientId, pair.createdAt);
    await pairs.deleteOne({ _id: pair._id });
    moved += 1;
  }
  return moved;
}
