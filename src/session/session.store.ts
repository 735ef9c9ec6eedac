// express-session's store in MongoDB (never the memory store), so sessions survive restarts and are
// shared by every instance. Written here rather than taken from connect-mongo, which needs a second
// copy of the MongoDB driver and relies on a TTL index.
//
// A person's signed-in sessions are found through their slots: `slot:<userId>#<n>`, n below
// SLOTS_PER_ACCOUNT, each naming the session that holds it, written in the same insert as that
// session's first save. So listing a person's browsers reads 50 records by `_id` (FerretDB 1.x would
// read every session for a filter by person), and no account holds more sessions than it has slots.
import { Store, type SessionData } from 'express-session';
import { randomInt } from 'node:crypto';
import { mongo } from 'mongoose';
import { expiringCollection, readByIds } from '../db/expiry-journal';
import { upsertRacing } from '../db/duplicate-key';
import { SessionModel, type SessionDocument } from './session.model';

/** How long the server keeps a session whose cookie lasts only as long as the browser. */
const BROWSER_SESSION_MS = 24 * 3600 * 1000;

/** The signed-in browsers one account keeps at most: its slots. */
export const SLOTS_PER_ACCOUNT = 50;

type Callback<T = void> = (err?: unknown, value?: T) => void;

function expiryOf(session: SessionData): Date {
  const expires = session.cookie?.expires;
  return expires ? new Date(expires) : new Date(Date.now() + BROWSER_SESSION_MS);
}

const MAX_KNOWN = 10_000;
const MAX_KNOWN_BYTES = 8 * 1024;

// Sessions grow with the people: they go through the expiry journal, and a session in use has moved
// its expiry since, so the sweep reads it first.
const journal = expiringCollection({
  name: SessionModel.collection.collectionName,
  currentExpiry: async (ids) => {
    const found = await readByIds((id) => SessionModel.findById(id, { expiresAt: 1 }).lean<SessionDocument>().exec(), ids);
    return new Map(found.map((doc) => [doc._id, doc.expiresAt]));
  },
  // Sessions, not the slots beside them.
  existing: { filter: { data: { $exists: true } }, fields: { expiresAt: 1 }, expiryOf: (record) => record.expiresAt as Date },
});

/** A session's last-seen time is brought forward at most this often (each request would otherwise write). */
const TOUCH_EVERY_MS = 60_000;

/** What this process last read or wrote of a session: its data, when it was last seen, and its slot. */
interface Known {
  data: string;
  lastSeenAt: number;
  slot?: string;
}

/** The slot records live beside the sessions: `slot:<userId>#<n>`, the session that holds it. */
interface SlotDocument {
  _id: string;
  sid: string;
}

const slotId = (userId: string, n: number) => `slot:${userId}#${n}`;
const slotsOf = (userId: string) => Array.from({ length: SLOTS_PER_ACCOUNT }, (_, n) => slotId(userId, n));
const raw = () => SessionModel.collection as unknown as mongo.Collection<SessionDocument | SlotDocument>;

/**
 * Session ids given up for a new one by requests (regenerateSession), deleted just before the new id is
 * first stored. Keyed by the request, which express-session's Session carries (`session.req`), so any
 * save of the new session retires the old.
 */
const retiring = new WeakMap<object, string>();

/** The request's session id is to be given up once its new session is first stored. */
export function retireOnSave(req: object, sid: string): void {
  if (!retiring.has(req)) retiring.set(req, sid);
}

/** The sessions express-session built from a stored record (not made by the request that holds them). */
const loaded = new WeakSet<object>();

/** Whether this session object was read from the store (its id came with the browser's cookie). */
export const wasStored = (session: object): boolean => loaded.has(session);

/** Sessions this process made and stored, and the slot each signed-in one holds. */
const stored = new WeakSet<object>();
const slotOf = new WeakMap<object, string>();
/** Signed-in sessions made by this process whose first pick of a slot was held (needsSlot). */
const unslotted = new WeakSet<object>();

/** Whether the session was stored without a slot (the one it picked was held): the journey finds it one (takeSlot). */
export const needsSlot = (session: object): boolean => unslotted.has(session);

export class MongoSessionStore extends Store {
  /** express-session's hook for a session read from the store: remembered as such (wasStored). */
  override createSession(req: Parameters<Store['createSession']>[0], data: SessionData): ReturnType<Store['createSession']> {
    const session = super.createSession(req, data);
    loaded.add(session);
    return session;
  }

  /**
   * Recently read or written sessions, so that a save of unchanged data (the sign-in journey stores a
   * session before its redirect goes out, and express-session saves it again at the end) and a touch
   * within a minute of the last cost no write. Bounded; the oldest are forgotten first.
   */
  private readonly known = new Map<string, Known>();

  private remember(sid: string, known: Known): void {
    this.known.delete(sid);
    // A large session (consent pages open) is written whenever saved: memory stays bounded.
    if (known.data.length > MAX_KNOWN_BYTES) return;
    this.known.set(sid, known);
    if (this.known.size > MAX_KNOWN) this.known.delete(this.known.keys().next().value!);
  }

  get(sid: string, callback: Callback<SessionData | null>): void {
    SessionModel.findById(sid)
      .lean()
      .exec()
      .then((doc) => {
        const data = doc && doc.expiresAt > new Date() ? (JSON.parse(doc.data) as Partial<SessionData>) : null;
        // A session without its cookie (one an earlier version retired by emptying it) is none.
        if (!data?.cookie) {
          this.known.delete(sid);
          return callback(null, null);
        }
        this.remember(sid, { data: doc!.data, lastSeenAt: (doc!.lastSeenAt ?? new Date(0)).getTime(), slot: doc!.slot });
        callback(null, data as SessionData);
      }, callback);
  }

  set(sid: string, session: SessionData, callback?: Callback): void {
    const { userId } = session;
    const data = JSON.stringify(session);
    const now = new Date();
    const known = this.known.get(sid);
    if (known?.data === data && now.getTime() - known.lastSeenAt < TOUCH_EVERY_MS) return void callback?.();
    const seen = { data, expiresAt: expiryOf(session), lastSeenAt: now };
    const req = (session as SessionData & { req?: object }).req;
    const retired = req && retiring.get(req);
    if (req) retiring.delete(req);
    const retiredSlot = retired && retired !== sid ? this.known.get(retired)?.slot : undefined;
    if (retired && retired !== sid) this.known.delete(retired);
    // A session this request made: stored by an insert the first time, and once signed in, with a slot
    // of its person's in the same command (a session read from the store has its slot, or none).
    const mine = !loaded.has(session);
    const firstStore = mine && !stored.has(session);
    const pick =
      mine && userId && !slotOf.has(session) && !unslotted.has(session) ? slotId(userId, randomInt(SLOTS_PER_ACCOUNT)) : undefined;
    // The given-up session deleted (by its id, with its slot), then this one stored. Not emptied in
    // place: FerretDB writes an update back as the whole document it read, so a touch by a request that
    // read the old session just before could bring its data back; an update finds no deleted document.
    const write = async (): Promise<string | undefined> => {
      if (retired && retired !== sid) await deleteWithSlot(retired, retiredSlot);
      const doc = { ...seen, ...(userId ? { userId } : {}) };
      if (firstStore) return insertFirst(sid, doc, pick);
      const update = userId ? { $set: { ...seen, userId } } : { $set: seen, $unset: { userId: 1 } };
      await upsertRacing(() => SessionModel.updateOne({ _id: sid }, update, { upsert: true }).exec());
      return pick ? holdSlot(sid, pick) : (slotOf.get(session) ?? known?.slot);
    };
    write().then(
      (held) => {
        if (firstStore) journal.add(sid, seen.expiresAt);
        stored.add(session);
        if (held) slotOf.set(session, held);
        else if (pick) unslotted.add(session);
        this.remember(sid, { data, lastSeenAt: now.getTime(), slot: held });
        callback?.();
      },
      (err: unknown) => callback?.(err),
    );
  }

  destroy(sid: string, callback?: Callback): void {
    const known = this.known.get(sid);
    this.known.delete(sid);
    deleteWithSlot(sid, known?.slot, known === undefined).then(
      () => callback?.(),
      (err: unknown) => callback?.(err),
    );
  }

  touch(sid: string, session: SessionData, callback?: Callback): void {
    const now = new Date();
    const known = this.known.get(sid);
    if (known && now.getTime() - known.lastSeenAt < TOUCH_EVERY_MS) return void callback?.();
    SessionModel.updateOne({ _id: sid }, { $set: { expiresAt: expiryOf(session), lastSeenAt: now } })
      .exec()
      .then(
        () => {
          if (known) this.remember(sid, { ...known, lastSeenAt: now.getTime() });
          callback?.();
        },
        (err: unknown) => callback?.(err),
      );
  }
}

/**
 * A session's first save: the session and, when signed in, the slot it picked, in one insert. The
 * slot it holds, or undefined when it holds none (the pick was held: needsSlot). A session stored
 * already under this id (a retry) is written over.
 */
async function insertFirst(sid: string, doc: Omit<SessionDocument, '_id'>, slot: string | undefined): Promise<string | undefined> {
  const docs: (SessionDocument | SlotDocument)[] = [{ _id: sid, ...doc, ...(slot ? { slot } : {}) }, ...(slot ? [{ _id: slot, sid }] : [])];
  try {
    await raw().insertMany(docs, { ordered: false });
    return slot;
  } catch (err) {
    const failed = err instanceof mongo.MongoBulkWriteError ? ([] as { index: number; code: number }[]).concat(err.writeErrors) : [];
    if (failed.length === 0 || failed.some((write) => write.code !== 11000)) throw err;
    if (failed.some((write) => write.index === 0)) await SessionModel.updateOne({ _id: sid }, { $set: doc }, { upsert: true }).exec();
    const slotHeld = failed.every((write) => write.index !== 1);
    if (!slotHeld && slot) await SessionModel.updateOne({ _id: sid }, { $unset: { slot: 1 } }).exec();
    return slotHeld ? slot : undefined;
  }
}

/** A slot picked for a session stored before: held when free (a unique insert), written on the session. */
async function holdSlot(sid: string, slot: string): Promise<string | undefined> {
  try {
    await raw().insertOne({ _id: slot, sid });
  } catch (err) {
    if ((err as { code?: unknown }).code === 11000) return undefined;
    throw err;
  }
  await SessionModel.updateOne({ _id: sid }, { $set: { slot } }).exec();
  return slot;
}

/** Deletes a session and its slot (read first when not known), by `_id`, in one command. */
async function deleteWithSlot(sid: string, slot: string | undefined, readFirst = false): Promise<void> {
  const held =
    slot ?? (readFirst ? (await SessionModel.findById(sid, { slot: 1 }).lean<Pick<SessionDocument, 'slot'>>().exec())?.slot : undefined);
  await raw().bulkWrite(
    [sid, ...(held ? [held] : [])].map((id) => ({ deleteOne: { filter: { _id: id } } })),
    { ordered: false },
  );
}

/** A signed-in session as the account page lists it. */
export interface StoredSession {
  id: string;
  data: SessionData;
  lastSeenAt: Date;
  slot?: string;
}

/** The person's slots, each with the live session that holds it, or null (free, or its session gone). */
async function slotTable(userId: string): Promise<{ slot: string; session: StoredSession | null }[]> {
  const slots = await Promise.all(slotsOf(userId).map((id) => raw().findOne({ _id: id }) as Promise<SlotDocument | null>));
  const now = new Date();
  return Promise.all(
    slotsOf(userId).map(async (slot, n) => {
      const holder = slots[n];
      const doc = holder ? await SessionModel.findById(holder.sid).lean<SessionDocument>().exec() : null;
      const live = doc && doc.userId === userId && doc.slot === slot && doc.expiresAt > now;
      return {
        slot,
        session: live
          ? { id: doc._id, data: JSON.parse(doc.data) as SessionData, lastSeenAt: doc.lastSeenAt ?? doc.expiresAt, slot }
          : null,
      };
    }),
  );
}

/** The user's live sessions, most recently used first; `range` takes one page of them. */
export async function sessionsOf(userId: string, range?: { skip: number; limit: number }): Promise<StoredSession[]> {
  const sessions = (await slotTable(userId))
    .flatMap(({ session }) => (session ? [session] : []))
    .sort((a, b) => b.lastSeenAt.getTime() - a.lastSeenAt.getTime() || (a.id < b.id ? -1 : 1));
  return range ? sessions.slice(range.skip, range.skip + range.limit) : sessions;
}

/** Ends every session of a user, remember-me ones included, and frees every slot. */
export async function removeSessionsOf(userId: string): Promise<void> {
  const table = await slotTable(userId);
  await raw().bulkWrite(
    table.flatMap(({ slot, session }) => [slot, ...(session ? [session.id] : [])]).map((id) => ({ deleteOne: { filter: { _id: id } } })),
    { ordered: false },
  );
}

/** Ends one session of the user; false when it is not theirs or already gone. */
export async function removeSessionOf(userId: string, id: string): Promise<boolean> {
  const doc = await SessionModel.findById(id, { userId: 1, slot: 1 }).lean<Pick<SessionDocument, 'userId' | 'slot'>>().exec();
  if (doc?.userId !== userId) return false;
  const result = await raw().bulkWrite(
    [id, ...(doc.slot ? [doc.slot] : [])].map((key) => ({ deleteOne: { filter: { _id: key } } })),
    { ordered: false },
  );
  return result.deletedCount > 0;
}

/** Which session a sign-in past the cap ends: remember-me ones first (they last 30 days), the least recently used first. */
export type Evictable = (a: StoredSession, b: StoredSession) => number;

/**
 * Finds a slot for a session whose first pick was held (needsSlot): a free one, or else the one the
 * least recently used other session holds, which is ended (returned, for what must follow). A few
 * rounds against concurrent sign-ins of the same person; the session stays without a slot after them.
 */
export async function takeSlot(userId: string, sid: string, order: Evictable): Promise<StoredSession[]> {
  // While most slots are free, another pick or two finds one for an insert each.
  for (let pick = 0; pick < 2; pick++) if (await holdSlot(sid, slotId(userId, randomInt(SLOTS_PER_ACCOUNT)))) return [];
  for (let round = 0; round < 3; round++) {
    const table = await slotTable(userId);
    const free = table.filter(({ session }) => session === null);
    let ended: StoredSession[] = [];
    let slot: string;
    if (free.length > 0) {
      slot = free[randomInt(free.length)].slot;
    } else {
      const victim = table
        .map(({ session }) => session!)
        .filter((session) => session.id !== sid)
        .sort(order)[0];
      if (!victim) return [];
      await SessionModel.deleteOne({ _id: victim.id }).exec();
      ended = [victim];
      slot = victim.slot!;
    }
    // A slot left by a session that is gone is cleared first: one holder at a time, by unique insert.
    await SessionModel.deleteOne({ _id: slot }).exec();
    try {
      await raw().insertOne({ _id: slot, sid });
    } catch (err) {
      if ((err as { code?: unknown }).code !== 11000) throw err;
      if (ended.length > 0) return ended;
      continue;
    }
    await SessionModel.updateOne({ _id: sid }, { $set: { slot } }).exec();
    return ended;
  }
  return [];
}
