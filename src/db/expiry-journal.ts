// Deleting expired records without reading whole collections. FerretDB 1.x has no TTL indexes and
// reads every document of a collection for any filter but one equality on `_id`, so a sweep by
// `expiresAt` costs the whole collection each time: minutes for a million tokens. Instead each
// expiring record of a collection that grows with the data (tokens, sessions, events) is written down
// in a journal of its expiry period, a collection of its own (`expiring_h2026120114` for an hour,
// `expiring_d20261201` for a day when the expiry is more than two days away) holding only the ids. Once
// the period has passed, the sweeper reads that journal whole (every id in it is due), deletes the
// records by `_id`, one statement each in one command per collection, and drops the journal. Its cost
// is the records that expire, whatever the size of the rest.
//
// An entry is written after its record, not awaited by the request that wrote the record: entries are
// gathered for a moment (FLUSH_MS) and written together, one insert per period for everything that came
// meanwhile, whatever the number of requests; a failed write is tried again with the next. A process that dies with entries unwritten leaves those records to lie
// expired (every read checks expiry) until deleted some other way. Records whose expiry moves later
// (a session in use) say so (`currentExpiry`): the sweeper reads them by `_id` and writes each still
// live one down again for its new expiry.
import mongoose, { mongo } from 'mongoose';
import { throttled } from './sweeper';

/** A collection whose records are deleted through the journal. */
export interface ExpiringCollection {
  /** What the journal's entries name: the collection's name, or a kind of record within one (`collection`). */
  readonly name: string;
  /** The collection the records are in, when it is not `name` (records of two kinds in one collection). */
  readonly collection?: string;
  /** Records whose expiry can move later: their expiry now (absent: gone), read by `_id`. */
  currentExpiry?(ids: string[]): Promise<Map<string, Date>>;
  /** Called with the ids the sweep deleted, for what goes with them (a session's slot). */
  deleted?(ids: string[]): Promise<void>;
  /** How a record written before the journal existed is written down (journalExistingRecords): its expiry. */
  readonly existing?: {
    /** Which records of the collection are of this kind, and the fields their expiry is read from. */
    filter?: Record<string, unknown>;
    fields: Record<string, 1>;
    expiryOf(record: Record<string, unknown>): Date | undefined;
  };
}

const PREFIX = 'expiring_';
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** Expiries further away than this are journaled by the day, nearer ones by the hour. */
const HOURLY_WITHIN_MS = 2 * DAY_MS;
/** Entries waiting to be written are bounded: beyond this the oldest are dropped (an outage that lasts). */
const MAX_WAITING = 200_000;
/** Deletes per command in a sweep. */
const DELETE_BATCH = 500;
/** How long entries gather before they are written: one insert per journal for all of them. */
const FLUSH_MS = 100;

/** The journaled collections, as their DAOs define them at import (as Mongoose's models are): not a cache. */
const kinds: ExpiringCollection[] = [];
const kindNamed = (name: string) => kinds.find((kind) => kind.name === name);

/** Registers a collection (once, where its DAO is defined); its journal entries name it. */
export function expiringCollection(kind: ExpiringCollection): { add(id: string, expiresAt: Date): void } {
  kinds.push(kind);
  return { add: (id, expiresAt) => add(kind.name, id, expiresAt) };
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The journal a record expiring at `expiresAt` goes in, seen at `now`, and when that journal is due. */
export function periodOf(expiresAt: Date, now: Date): { name: string; dueAt: number } {
  // A period already past is no use: what expires before the current hour goes in the current hour's.
  const at = Math.max(expiresAt.getTime(), now.getTime());
  const date = new Date(at);
  const day = `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}`;
  if (at - now.getTime() > HOURLY_WITHIN_MS)
    return { name: `${PREFIX}d${day}`, dueAt: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) + DAY_MS };
  const hourStart = Math.floor(at / HOUR_MS) * HOUR_MS;
  return { name: `${PREFIX}h${day}${pad(date.getUTCHours())}`, dueAt: hourStart + HOUR_MS };
}

/** When a journal named by periodOf is due, from its name; null for another collection. */
export function dueAtOf(name: string): number | null {
  const match = /^expiring_(h|d)(\d{4})(\d{2})(\d{2})(\d{2})?$/.exec(name);
  if (!match) return null;
  const [, unit, year, month, day, hour] = match;
  const start = Date.UTC(Number(year), Number(month) - 1, Number(day), unit === 'h' ? Number(hour) : 0);
  return start + (unit === 'h' ? HOUR_MS : DAY_MS);
}

interface Entry {
  journal: string;
  _id: string;
}

let waiting: Entry[] = [];
let writing: Promise<void> | null = null;
let timer: NodeJS.Timeout | null = null;

/** The id of an entry: the collection and the record, so one record is written down once per period. */
const entryId = (collection: string, id: string) => `${collection} ${id}`;

function add(collection: string, id: string, expiresAt: Date): void {
  const now = new Date();
  waiting.push({ journal: periodOf(expiresAt, now).name, _id: entryId(collection, id) });
  if (waiting.length > MAX_WAITING) waiting = waiting.slice(waiting.length - MAX_WAITING);
  // Gathered for a moment; the timer does not keep the process alive (shutdown writes what waits).
  timer ??= setTimeout(() => {
    timer = null;
    writing ??= write().finally(() => (writing = null));
  }, FLUSH_MS).unref();
  sweep(now);
}

/** Writes what waits, one insert per journal, until nothing does; a failed batch waits for the next add. */
async function write(): Promise<void> {
  while (waiting.length > 0) {
    const batch = waiting;
    waiting = [];
    const byJournal = new Map<string, { _id: string }[]>();
    for (const { journal, _id } of batch) {
      const entries = byJournal.get(journal) ?? [];
      entries.push({ _id });
      byJournal.set(journal, entries);
    }
    const failed: Entry[] = [];
    await Promise.all(
      [...byJournal].map(async ([journal, entries]) => {
        try {
          await mongoose.connection.collection<{ _id: string }>(journal).insertMany(entries, { ordered: false });
        } catch (err) {
          // An entry written before (the same record again) is what was wanted.
          const written =
            err instanceof mongo.MongoBulkWriteError && ([] as { code: number }[]).concat(err.writeErrors).every((e) => e.code === 11000);
          if (!written) failed.push(...entries.map(({ _id }) => ({ journal, _id })));
        }
      }),
    );
    if (failed.length > 0) {
      waiting = [...failed, ...waiting].slice(-MAX_WAITING);
      return;
    }
  }
}

/** Writes the entries waiting now, without waiting for the moment to pass (or fails to): for tests and shutdown. */
export async function journalWritten(): Promise<void> {
  if (timer) {
    clearTimeout(timer);
    timer = null;
  }
  while (writing) await writing;
  if (waiting.length > 0) {
    writing = write().finally(() => (writing = null));
    await writing;
  }
}

/** A journal is read this long after its period ends: an entry still on its way is written by then. */
const SETTLE_MS = 60_000;
/** Ids read from a journal before their records are deleted: what a sweep holds in memory. */
const READ_BATCH = 2000;

/** Deletes the records of every journal whose period has passed, then the journal. */
export async function sweepJournals(now: Date): Promise<void> {
  const db = mongoose.connection.db;
  if (!db) return;
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name);
  const due = names.filter((name) => (dueAtOf(name) ?? Infinity) + SETTLE_MS <= now.getTime()).sort();
  for (const journal of due) {
    const byCollection = new Map<string, string[]>();
    const flush = async () => {
      for (const [collection, ids] of byCollection) {
        const kind = kindNamed(collection);
        if (kind) await expire(kind, ids, now);
      }
      byCollection.clear();
    };
    let held = 0;
    for await (const { _id } of db.collection<{ _id: string }>(journal).find({}, { batchSize: READ_BATCH })) {
      const space = _id.indexOf(' ');
      const collection = _id.slice(0, space);
      const ids = byCollection.get(collection) ?? [];
      ids.push(_id.slice(space + 1));
      byCollection.set(collection, ids);
      if (++held % READ_BATCH === 0) await flush();
    }
    await flush();
    await db
      .collection(journal)
      .drop()
      .catch(() => undefined);
  }
}

/** Deletes the records that have expired; those whose expiry moved later are written down again. */
async function expire(kind: ExpiringCollection, ids: string[], now: Date): Promise<void> {
  let expired = ids;
  if (kind.currentExpiry) {
    const current = await kind.currentExpiry(ids);
    expired = ids.filter((id) => {
      const at = current.get(id);
      if (at === undefined || at <= now) return true;
      add(kind.name, id, at);
      return false;
    });
  }
  const collection = mongoose.connection.collection<{ _id: string }>(kind.collection ?? kind.name);
  for (let start = 0; start < expired.length; start += DELETE_BATCH) {
    const batch = expired.slice(start, start + DELETE_BATCH);
    await collection.bulkWrite(
      batch.map((id) => ({ deleteOne: { filter: { _id: id } } })),
      { ordered: false },
    );
    await kind.deleted?.(batch);
  }
}

const sweep = throttled(60_000, sweepJournals);

/**
 * Writes down every record of the journaled collections (a migration, src/migrations.ts): records
 * stored before the journal existed are otherwise never swept. One read of each collection, once.
 */
export async function journalExistingRecords(): Promise<number> {
  let written = 0;
  for (const kind of kinds) {
    if (!kind.existing) continue;
    const { filter = {}, fields, expiryOf } = kind.existing;
    const records = mongoose.connection
      .collection(kind.collection ?? kind.name)
      .find(filter, { projection: fields, batchSize: READ_BATCH });
    for await (const record of records) {
      const expiresAt = expiryOf(record);
      if (!expiresAt) continue;
      add(kind.name, String(record._id), expiresAt);
      if (++written % READ_BATCH === 0) await journalWritten();
    }
  }
  await journalWritten();
  return written;
}

/** Reads records by `_id`, at most `concurrency` at a time: for `currentExpiry`. */
export async function readByIds<T extends { _id: string }>(
  read: (id: string) => Promise<T | null>,
  ids: string[],
  concurrency = 16,
): Promise<T[]> {
  const found: T[] = [];
  for (let start = 0; start < ids.length; start += concurrency) {
    const batch = await Promise.all(ids.slice(start, start + concurrency).map(read));
    for (const doc of batch) if (doc) found.push(doc);
  }
  return found;
}
