// Rate-limit counts in MongoDB, so every instance behind a load balancer counts together. A sliding
// window: each counted request is a document that expires one window after it was made, and a key's
// count is its unexpired hits. Each hit holds one of its key's numbered slots (a unique field): a
// unique insert, the one write FerretDB 1.x makes atomic (an $inc through findAndModify is not), takes
// a slot, so a key never holds more hits than slots, on any number of instances. Expired hits are
// swept by query, and cleared from a slot when a reservation finds them there; both delete by a hit's
// own id, never by its slot, so the hit that holds the slot next is never the one deleted.
import { mongo, trusted } from 'mongoose';
import { startsWith } from '../db/starts-with';
import { throttled } from '../db/sweeper';
import { HitModel, type HitDocument } from './rate-limit.model';

const sweepExpired = throttled(60_000, async (now) => {
  await HitModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
});

const live = (key: string, now: Date) => ({ key, expiresAt: trusted({ $gt: now }) });

/** The number of unexpired hits of a key. */
export function countLive(key: string, now: Date): Promise<number> {
  return HitModel.countDocuments(live(key, now)).exec();
}

/** The slots of these keys as they are held now, expired holders included, in one query. */
export function slotsOf(keys: string[]): Promise<HitDocument[]> {
  return HitModel.find({ key: trusted({ $in: keys }) }, { slot: 1, key: 1, expiresAt: 1 })
    .lean<HitDocument[]>()
    .exec();
}

/**
 * Deletes hits by their ids, in one command of one statement each: `_id` alone is the filter every
 * engine answers without reading the collection (FerretDB reads it all for `$in`). A hit's id is never
 * used again, so deleting by it can only ever delete that hit.
 */
async function deleteByIds(ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await HitModel.bulkWrite(
    ids.map((id) => ({ deleteOne: { filter: { _id: id } } })),
    { ordered: false },
  );
}

/** Frees slots whose hits (these ids, seen expired) have expired; a slot taken again since holds a hit of another id. */
export async function clearExpired(ids: string[]): Promise<void> {
  await deleteByIds(ids);
}

const DUPLICATE_KEY = 11000;

/**
 * The positions a bulk insert's error says were already held (a duplicate key each), or null when
 * the error does not account for every document it did not write: then nothing may be taken as
 * written. FerretDB, with SQLite busy under load, has answered a bulk error with no write errors and
 * nothing inserted; read as "all written", it let one authenticator-app code sign in several times.
 */
export function heldPositions(
  failed: readonly { index: number; code: number }[],
  inserted: number | undefined,
  count: number,
): Set<number> | null {
  if (failed.length === 0 || failed.some((write) => write.code !== DUPLICATE_KEY)) return null;
  if (inserted === undefined || inserted + failed.length !== count) return null;
  return new Set(failed.map((write) => write.index));
}

/**
 * Writes the hits, each into the slot it names, in one command; the positions of those whose slot was
 * already held (the others are written).
 */
export async function takeSlots(hits: HitDocument[], now: Date): Promise<Set<number>> {
  if (hits.length === 0) return new Set();
  try {
    // The driver's own insert: one command, and no document built for hits that are only written.
    await (HitModel.collection as unknown as mongo.Collection<HitDocument>).insertMany(hits, { ordered: false });
  } catch (err) {
    if (!(err instanceof mongo.MongoBulkWriteError)) throw err;
    const held = heldPositions(([] as { index: number; code: number }[]).concat(err.writeErrors), err.result?.insertedCount, hits.length);
    if (!held) throw err;
    return held;
  } finally {
    sweepExpired(now);
  }
  return new Set();
}

/** When the oldest unexpired hit of a key expires; null when there is none. */
export async function oldestExpiry(key: string, now: Date): Promise<Date | null> {
  const oldest = await HitModel.findOne(live(key, now), { expiresAt: 1 }).sort({ expiresAt: 1 }).lean<{ expiresAt: Date }>().exec();
  return oldest?.expiresAt ?? null;
}

/** Deletes every hit of these keys, and of every key that starts with one of the prefixes; how many went. */
export async function deleteKeys(keys: string[], prefixes: string[]): Promise<number> {
  const filters = [
    ...(keys.length > 0 ? [{ key: trusted({ $in: keys }) }] : []),
    ...prefixes.map((prefix) => ({ key: startsWith(prefix) })),
  ];
  if (filters.length === 0) return 0;
  const { deletedCount } = await HitModel.deleteMany({ $or: filters }).exec();
  return deletedCount;
}

export async function deleteHits(ids: string[]): Promise<void> {
  await deleteByIds(ids);
}
