// The only importer of the activity model.
import { randomUUID } from 'node:crypto';
import { trusted } from 'mongoose';
import { ActivityModel, type ActivityDocument } from './activity.model';

export async function insert(entry: Omit<ActivityDocument, '_id'>): Promise<void> {
  await ActivityModel.create({ _id: randomUUID(), ...entry });
}

/** The user's events since `since`, newest first, one page (`limit` after `skip`). */
export function listSince(userId: string, since: Date, skip: number, limit: number): Promise<ActivityDocument[]> {
  return ActivityModel.find({ userId, at: trusted({ $gt: since }) })
    .sort({ at: -1, _id: 1 })
    .skip(skip)
    .limit(limit)
    .lean<ActivityDocument[]>()
    .exec();
}

/** Every account's events matching the filter, newest first (then by id), after the cursor. */
export function search(
  filter: { userId?: string; clientId?: string; kind?: string; since: Date; until?: Date; after?: { at: Date; id: string } },
  limit: number,
): Promise<ActivityDocument[]> {
  const query: Record<string, unknown> = { at: trusted({ $gt: filter.since, ...(filter.until ? { $lte: filter.until } : {}) }) };
  if (filter.userId) query.userId = filter.userId;
  if (filter.clientId) query.clientId = filter.clientId;
  if (filter.kind) query.kind = filter.kind;
  if (filter.after) {
    const { at, id } = filter.after;
    query.$or = [{ at: trusted({ $lt: at }) }, { at, _id: trusted({ $gt: id }) }];
  }
  return ActivityModel.find(query).sort({ at: -1, _id: 1 }).limit(limit).lean<ActivityDocument[]>().exec();
}

export async function deleteOlderThan(cutoff: Date): Promise<void> {
  await ActivityModel.deleteMany({ at: trusted({ $lte: cutoff }) }).exec();
}
