// Reading clients for what asks on every request (the token, introspection, revocation, userinfo and
// authorization endpoints), the web origins of public clients (CORS), and the key sets clients publish
// at their jwks_uri: the database's (or the network's) store, and the cache decorators the composition
// root (src/stores.ts) puts on them once per app.
import type { Clock } from '../../common/clock';
import { SignalledCache } from '../../common/signalled-cache';
import { guardedFetch, GuardedFetchError } from '../../common/guarded-fetch';
import { isOrigin, originsChanged } from './client-origins.service';
import { JWKS_LIMITS, jwksProblem, publicKeysOf, type ClientJwk, type ClientKeySets } from './client-keys.service';
import * as clientsDao from './clients.dao';
import type { ClientDocument } from './clients.model';

/**
 * The one client registry every client lookup of a request asks (the authorization checks, client
 * authentication, the token guard, userinfo, end-session): a client_id in, the client as it is now
 * out. Clients registered here (RFC 7591, the console, the command line) are its first source.
 */
export interface ClientRegistry {
  /**
   * The client as it is now, or null when there is none; `explain` hears why, when the reason is
   * the client's to know (a metadata document refused, client-documents.ts).
   */
  find(clientId: string, explain?: (reason: string) => void): Promise<ClientDocument | null>;
}

/** A client as read: a registered key set holds its keys' own members only (older records may hold more). */
function withOwnKeyMembers(client: ClientDocument | null): ClientDocument | null {
  const jwks = client?.metadata?.jwks;
  if (!client || !jwks) return client;
  return { ...client, metadata: { ...client.metadata, jwks: { keys: publicKeysOf(jwks) } } };
}

/** The registry's first source: the clients registered in the database. */
export const registeredClients: ClientRegistry = {
  find: async (clientId) => withOwnKeyMembers(await clientsDao.findClient(clientId)),
};

/**
 * Clients read recently, by id. A replaced, changed or deleted client raises the signal that empties
 * the cache, so a rotated secret or a deleted client is refused at once on the instance that changed it
 * and within a second on the others. Unknown ids are not kept: a made-up client_id costs a read, and no memory.
 */
export function cachedClients(store: ClientRegistry, clock: Clock): ClientRegistry {
  const recent = new SignalledCache<ClientDocument>(clientsDao.clientsChanged, { maxEntries: 1_000, ttlMs: 60_000, clock });
  return { find: (clientId, explain) => recent.getOrLoad(clientId, () => store.find(clientId, explain)) };
}

export interface ClientOriginStore {
  /** Whether a registered public client has this origin (a value that is no origin is not looked up). */
  isPublicClientOrigin(origin: string): Promise<boolean>;
}

export const databaseClientOrigins: ClientOriginStore = {
  isPublicClientOrigin: async (origin) => isOrigin(origin) && (await clientsDao.publicClientOrigins()).includes(origin),
};

/** The set of every public client's origin, one entry, kept until a public client comes or goes. */
export function cachedClientOrigins(clock: Clock): ClientOriginStore {
  const all = new SignalledCache<ReadonlySet<string>>(originsChanged, { maxEntries: 1, ttlMs: 60_000, clock });
  return {
    async isPublicClientOrigin(origin) {
      if (!isOrigin(origin)) return false;
      const origins = await all.getOrLoad('all', async () => new Set(await clientsDao.publicClientOrigins()));
      return origins?.has(origin) ?? false;
    },
  };
}

/** The most fetched sets kept; the oldest goes first. */
const MAX_KEPT_SETS = 1000;

/**
 * Fetched through the guarded fetcher, kept for JWKS_LIMITS.cacheMs, and fetched again (at most every
 * JWKS_LIMITS.refetchAfterMs, by `clock`) when a JWT names a key id the copy does not hold, so a client
 * can rotate.
 */
export function fetchedClientKeySets(clock: Clock): ClientKeySets {
  const fetched = new Map<string, { keys: ClientJwk[]; at: number }>();

  async function fetchKeys(uri: string, allowPrivate: boolean): Promise<ClientJwk[]> {
    const body = await guardedFetch(uri, { allowPrivate, maxBytes: JWKS_LIMITS.bytes, timeoutMs: JWKS_LIMITS.fetchTimeoutMs });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new GuardedFetchError('the jwks_uri document is not JSON');
    }
    const problem = jwksProblem(parsed);
    if (problem) throw new GuardedFetchError(`the jwks_uri document ${problem}`);
    // Only the keys' own members are kept: a set padded with other members costs its size once, here.
    const keys = publicKeysOf(parsed as { keys: unknown[] });
    fetched.delete(uri);
    if (fetched.size >= MAX_KEPT_SETS) fetched.delete(fetched.keys().next().value!);
    fetched.set(uri, { keys, at: clock.now() });
    return keys;
  }

  return {
    async keysOf(client, kid, allowPrivate) {
      const { jwks, jwks_uri: uri } = client.metadata ?? {};
      // Registered sets are kept as their keys' own members (a client stored before that was is read the same way).
      if (jwks) return publicKeysOf(jwks);
      if (!uri) return [];
      const cached = fetched.get(uri);
      const age = cached ? clock.now() - cached.at : Infinity;
      const missing = kid !== undefined && !cached?.keys.some((key) => key.kid === kid);
      if (cached && age < JWKS_LIMITS.cacheMs && !(missing && age > JWKS_LIMITS.refetchAfterMs)) return cached.keys;
      return fetchKeys(uri, allowPrivate);
    },
    kept: (uri) => fetched.get(uri)?.keys,
  };
}
