// The only importer of the activity model.
import { randomUUID } from 'node:crypto';
import { trusted } from 'mongoose';
import { expiringCollection } from '../db/expiry-journal';
import { ACCOUNT_RULES } from './account.rules';
import { ActivityModel, type ActivityDocument } from './activity.model';

// Events grow with the people: the old ones go through the expiry journal, never by a query.
const journal = expiringCollection({
  name: ActivityModel.collection.collectionName,
  existing: {
    fields: { at: 1 },
    expiryOf: (record) => new Date((record.at as Date).getTime() + ACCOUNT_RULES.activityRetentionMs),
  },
});

/** `keepUntil`: when the event is old enough to go (its retention). */
export async function insert(entry: Omit<ActivityDocument, '_id'>, keepUntil: Date): Promise<void> {
  const _id = randomUUID();
  await ActivityModel.create({ _id, ...entry });
  journal.add(_id, keepUntil);
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
