// The web origins of public clients (browser apps registered with token_endpoint_auth_method none):
// taken from their http(s) redirect URIs at registration, and asked for by the CORS policy of the
// endpoints such an app calls. Answers are cached per process until a public client comes or goes
// on any instance (a change signal), and for a minute at most.
import { SignalledCache } from '../../common/signalled-cache';
import { changeSignal } from '../../db/change-signals';
import * as clientsDao from './clients.dao';

const originsChanged = changeSignal('client-origins');
// origin -> whether a public client has it; unknown origins are cached too, so a flood of one costs one lookup.
const known = new SignalledCache<boolean>(originsChanged, { maxEntries: 10_000, ttlMs: 60_000 });

/** The origins of the http(s) redirect URIs, as a browser sends them in `Origin`. */
export function webOriginsOf(redirectUris: readonly string[]): string[] {
  const origins = redirectUris.flatMap((uri) => {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? [url.origin] : [];
  });
  return [...new Set(origins)];
}

/** Whether a registered public client has this origin. */
export async function isPublicClientOrigin(origin: string): Promise<boolean> {
  const { value, generation } = await known.get(origin);
  if (value !== undefined) return value;
  const found = await clientsDao.publicClientHasOrigin(origin);
  known.set(origin, found, generation);
  return found;
}

/** A public client was registered or a client removed: every instance asks the database again. */
export function clientOriginsChanged(): Promise<void> {
  return originsChanged.raise();
}
