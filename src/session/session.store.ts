// express-session's store in MongoDB (never the memory store), so sessions survive restarts and are
// shared by every instance. Written here rather than taken from connect-mongo, which needs a second
// copy of the MongoDB driver and relies on a TTL index.
import { Store, type SessionData } from 'express-session';
import { trusted } from 'mongoose';
import { upsertRacing } from '../db/duplicate-key';
import { throttled } from '../db/sweeper';
import { SessionModel } from './session.model';

/** How long the server keeps a session whose cookie lasts only as long as the browser. */
const BROWSER_SESSION_MS = 24 * 3600 * 1000;

type Callback<T = void> = (err?: unknown, value?: T) => void;

function expiryOf(session: SessionData): Date {
  const expires = session.cookie?.expires;
  return expires ? new Date(expires) : new Date(Date.now() + BROWSER_SESSION_MS);
}

const MAX_KNOWN = 10_000;
const MAX_KNOWN_BYTES = 8 * 1024;

const sweepExpired = throttled(60_000, async (now) => {
  await SessionModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
});

/** A session's last-seen time is brought forward at most this often (each request would otherwise write). */
const TOUCH_EVERY_MS = 60_000;

/** What this process last read or wrote of a session: its data and when it was last seen. */
interface Known {
  data: string;
  lastSeenAt: number;
}

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
        this.remember(sid, { data: doc!.data, lastSeenAt: (doc!.lastSeenAt ?? new Date(0)).getTime() });
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
    const update = userId ? { $set: { ...seen, userId } } : { $set: seen, $unset: { userId: 1 } };
    sweepExpired();
    const req = (session as SessionData & { req?: object }).req;
    const retired = req && retiring.get(req);
    if (req) retiring.delete(req);
    if (retired && retired !== sid) this.known.delete(retired);
    // The given-up session deleted (by its id), then this one stored. Not emptied in place: FerretDB
    // writes an update back as the whole document it read, so a touch by a request that read the old
    // session just before could bring its data back; an update finds no deleted document.
    const write = async (): Promise<unknown> => {
      if (retired && retired !== sid) await SessionModel.deleteOne({ _id: retired }).exec();
      return SessionModel.updateOne({ _id: sid }, update, { upsert: true }).exec();
    };
    upsertRacing(write).then(
      () => {
        this.remember(sid, { data, lastSeenAt: now.getTime() });
        callback?.();
      },
      (err: unknown) => callback?.(err),
    );
  }

  destroy(sid: string, callback?: Callback): void {
    this.known.delete(sid);
    SessionModel.deleteOne({ _id: sid })
      .exec()
      .then(
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

/** Ends every session of a user, remember-me ones included. */
export async function removeSessionsOf(userId: string): Promise<void> {
  await SessionModel.deleteMany({ userId }).exec();
}

/** A signed-in session as the account page lists it. */
export interface StoredSession {
  id: string;
  data: SessionData;
  lastSeenAt: Date;
}

/** The user's live sessions, most recently used first; `range` takes one page of them. */
export async function sessionsOf(userId: string, range?: { skip: number; limit: number }): Promise<StoredSession[]> {
  let query = SessionModel.find({ userId, expiresAt: trusted({ $gt: new Date() }) }).sort({ lastSeenAt: -1, _id: 1 });
  if (range) query = query.skip(range.skip).limit(range.limit);
  const docs = await query.lean().exec();
  return docs.map((doc) => ({ id: doc._id, data: JSON.parse(doc.data) as SessionData, lastSeenAt: doc.lastSeenAt ?? doc.expiresAt }));
}

/** Ends one session of the user; false when it is not theirs or already gone. */
export async function removeSessionOf(userId: string, id: string): Promise<boolean> {
  const result = await SessionModel.deleteOne({ _id: id, userId }).exec();
  return result.deletedCount === 1;
}
