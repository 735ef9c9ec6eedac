// Rate-limit counts in MongoDB, so every instance behind a load balancer counts together. A sliding
// window: each counted request is a document that expires one window after it was made, and a key's
// count is its unexpired hits. Inserts and counts stay exact under concurrency on MongoDB and FerretDB
// alike (an $inc through findAndModify is not atomic on FerretDB 1.x). Expired hits are swept by query.
import { trusted } from 'mongoose';
import { throttled } from '../db/sweeper';
import { HitModel } from './rate-limit.model';

const sweepExpired = throttled(60_000, async (now) => {
  await HitModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
});

const live = (key: string, now: Date) => ({ key, expiresAt: trusted({ $gt: now }) });

/** The number of unexpired hits of a key. */
export function countLive(key: string, now: Date): Promise<number> {
  return HitModel.countDocuments(live(key, now)).exec();
}

/** The number of unexpired hits of each key, in one query (keys without any are absent). */
export async function liveCounts(keys: string[], now: Date): Promise<Map<string, number>> {
  const rows = await HitModel.aggregate<{ _id: string; count: number }>([
    { $match: { key: trusted({ $in: keys }), expiresAt: trusted({ $gt: now }) } },
    { $group: { _id: '$key', count: { $sum: 1 } } },
  ]).exec();
  return new Map(rows.map((row) => [row._id, row.count]));
}

/** When the oldest unexpired hit of a key expires; null when there is none. */
export async function oldestExpiry(key: string, now: Date): Promise<Date | null> {
  const oldest = await HitModel.findOne(live(key, now), { expiresAt: 1 }).sort({ expiresAt: 1 }).lean<{ expiresAt: Date }>().exec();
  return oldest?.expiresAt ?? null;
}

/** Writes the hits; their ids, to take them back. */
export async function insertHits(hits: { key: string; expiresAt: Date }[], now: Date): Promise<unknown[]> {
  if (hits.length === 0) return [];
  const inserted = await HitModel.insertMany(hits);
  sweepExpired(now);
  return inserted.map((hit) => hit._id);
}

/** Deletes every hit of these keys, and of every key that starts with one of the prefixes; how many went. */
export async function deleteKeys(keys: string[], prefixes: string[]): Promise<number> {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const filters = [
    ...(keys.length > 0 ? [{ key: trusted({ $in: keys }) }] : []),
    ...prefixes.map((prefix) => ({ key: trusted({ $regex: `^${escape(prefix)}` }) })),
  ];
  if (filters.length === 0) return 0;
  const { deletedCount } = await HitModel.deleteMany({ $or: filters }).exec();
  return deletedCount;
}

export async function deleteHits(ids: unknown[]): Promise<void> {
  if (ids.length > 0) await HitModel.deleteMany({ _id: trusted({ $in: ids }) }).exec();
}
