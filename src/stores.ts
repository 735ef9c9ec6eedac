// The composition root of the records' stores: made once per running app (createApp) or command, and
// handed to everything that reads through them. A store that caches is its database store wrapped by
// a cache decorator, emptied by the store's change signal (docs/decisions.md, "Caches and their
// staleness bound"): every caller of one app shares its caches, two apps in one process (the tests'
// two instances) share none, and no cache lives in a module global (lint holds it).
import { systemClock, type Clock } from './common/clock';
import type { Config } from './config';
import { documentClients, documentSettings } from './oauth/clients/client-documents.service';
import {
  cachedClientOrigins,
  cachedClients,
  registeredClients,
  fetchedClientKeySets,
  type ClientKeySets,
  type ClientOriginStore,
  type ClientRegistry,
} from './oauth/clients/clients.service';
import { cachedConsents, databaseConsents, type ConsentStore } from './oauth/grants/grants.service';
import { cachedResources, databaseResources, type ResourceStore } from './oauth/resources/resources.service';
import { cachedUsers, databaseUsers, type UserStore } from './users/users.service';

export interface Stores {
  users: UserStore;
  clients: ClientRegistry;
  /** The web origins of public clients, for CORS. */
  clientOrigins: ClientOriginStore;
  /** The key sets clients publish at their jwks_uri, as fetched. */
  clientKeySets: ClientKeySets;
  consents: ConsentStore;
  resources: ResourceStore;
}

/**
 * `clock`: what cached entries expire by, and when a fetched key set is old; `config`: whether and
 * how clients' metadata documents are fetched (none are without it: the command line's stores).
 */
export function createStores(clock: Clock = systemClock, config?: Pick<Config, 'clientDocuments' | 'isProduction'>): Stores {
  const registered = cachedClients(registeredClients, clock);
  return {
    users: cachedUsers(databaseUsers, clock),
    clients: config ? documentClients(registered, documentSettings(config), clock) : registered,
    clientOrigins: cachedClientOrigins(clock),
    clientKeySets: fetchedClientKeySets(clock),
    consents: cachedConsents(databaseConsents, clock),
    resources: cachedResources(databaseResources, clock),
  };
}
