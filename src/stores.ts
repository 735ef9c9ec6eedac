// The composition root of the records' stores: made once per running app (createApp) or command, and
// handed to everything that reads through them. A store that caches is its database store wrapped by
// a cache decorator, emptied by the store's change signal (docs/decisions.md, "Caches and their
// staleness bound"): every caller of one app shares its caches, two apps in one process (the tests'
// two instances) share none, and no cache lives in a module global (lint holds it).
import { systemClock, type Clock } from './common/clock';
import { cachedUsers, databaseUsers, type UserStore } from './users/users.service';

export interface Stores {
  users: UserStore;
}

export function createStores(clock: Clock = systemClock): Stores {
  return {
    users: cachedUsers(databaseUsers, clock),
  };
}
