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

export async function deleteOlderThan(cutoff: Date): Promise<void> {
  await ActivityModel.deleteMany({ at: trusted({ $lte: cutoff }) }).exec();
}
