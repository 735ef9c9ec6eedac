// Reading people for what asks on every request (a session's person, a bearer token's person, a seed
// 000 token's credentials stamp) and for sign-in: the database's store, and the cache decorator the
// composition root (src/stores.ts) puts on it once per app, so every caller of one app shares one
// cache and two apps share none.
import { normalizeEmail } from '../common/email';
import { SignalledCache } from '../common/signalled-cache';
import type { Clock } from '../common/clock';
import * as usersDao from './users.dao';
import type { UserRecord } from './users.types';

/** A record found for sign-in: the person and their stored hash (none for an account made by GitHub). */
export interface SignInRecord {
  user: UserRecord;
  password?: string;
}

export interface UserStore {
  /** The user as it is now, or null when there is none (a disabled one is returned: callers check isActive). */
  findCurrent(id: string): Promise<UserRecord | null>;
  /** For sign-in: the record with this email (normalised here) and its hash, in one read; null when none or disabled. */
  findForSignIn(email: string): Promise<SignInRecord | null>;
}

/** Straight from the database. */
export const databaseUsers: UserStore = {
  findCurrent: (id) => usersDao.findById(id),
  async findForSignIn(email) {
    const found = await usersDao.findPasswordHashByEmail(normalizeEmail(email));
    if (!found || found.disabled) return null;
    const { password, ...user } = found;
    return { user, password };
  },
};

/**
 * Users read recently, by id: every write of a record raises the signal that empties the cache, so a
 * password change, a deletion or a profile change is seen at once on the instance that made it and
 * within a second on the others. A record read for sign-in is kept for the requests that follow.
 * Unknown ids are not kept: a made-up id costs a read, and no memory.
 */
export function cachedUsers(store: UserStore, clock: Clock): UserStore {
  const recent = new SignalledCache<UserRecord>(usersDao.usersChanged, { maxEntries: 10_000, ttlMs: 60_000, clock });
  return {
    findCurrent: (id) => recent.getOrLoad(id, () => store.findCurrent(id)),
    async findForSignIn(email) {
      const { generation } = await recent.get('');
      const found = await store.findForSignIn(email);
      if (found) recent.set(found.user._id, found.user, generation);
      return found;
    },
  };
}

/** What an access token issued now records of the user's credentials: the last password change, in ms. */
export const credentialsStampOf = (user: Pick<UserRecord, 'credentialsChangedAt'>): number => user.credentialsChangedAt?.getTime() ?? 0;

/** The user's credentials stamp now, null for no such user. */
export async function credentialsStamp(users: UserStore, userId: string): Promise<number | null> {
  const user = await users.findCurrent(userId);
  return user ? credentialsStampOf(user) : null;
}
