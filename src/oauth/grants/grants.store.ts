// What each person approved for each client, read on every authorization: the database's store, and
// the cache decorator the composition root (src/stores.ts) puts on it once per app.
import type { Clock } from '../../common/clock';
import { SignalledCache } from '../../common/signalled-cache';
import { changeSignal } from '../../db/change-signals';
import * as grantsDao from './grants.dao';

/** Raised after a consent is forgotten (revoked, its person or client gone), so no app keeps honouring it. */
export const consentsForgotten = changeSignal('oauth-grants');

export interface ConsentStore {
  /** The scopes the person approved for the client, or null when none. */
  approved(userId: string, clientId: string): Promise<readonly string[] | null>;
  /** Adds to what the person approved; every scope approved now. */
  add(userId: string, clientId: string, scope: readonly string[], now: Date): Promise<readonly string[]>;
}

export const databaseConsents: ConsentStore = {
  approved: async (userId, clientId) => (await grantsDao.find(userId, clientId))?.scope ?? null,
  add: (userId, clientId, scope, now) => grantsDao.addScopes(userId, clientId, scope, now),
};

/**
 * Consents read recently: a consent forgotten is dropped at once on its instance and within a second
 * on the others (docs/decisions.md, "Caches and their staleness bound"); one given here is known here
 * at once. No consent is not kept: the consent page asks for it anyway.
 */
export function cachedConsents(store: ConsentStore, clock: Clock): ConsentStore {
  const recent = new SignalledCache<readonly string[]>(consentsForgotten, { maxEntries: 10_000, ttlMs: 60_000, clock });
  const keyOf = (userId: string, clientId: string) => `${userId}:${clientId}`;
  return {
    approved: (userId, clientId) => recent.getOrLoad(keyOf(userId, clientId), () => store.approved(userId, clientId)),
    async add(userId, clientId, scope, now) {
      const key = keyOf(userId, clientId);
      const { generation } = await recent.get(key);
      const approved = await store.add(userId, clientId, scope, now);
      recent.set(key, approved, generation);
      return approved;
    },
  };
}
