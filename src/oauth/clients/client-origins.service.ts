// The web origins of public clients (browser apps registered with token_endpoint_auth_method none):
// taken from their http(s) redirect URIs at registration, and asked for by the CORS policy of the
// endpoints such an app calls. The set of them is kept per app (clients.store.ts) until a public client
// comes or goes on any instance (a change signal), and for a minute at most; an `Origin` that is no
// origin (or is longer than one) is answered without a look, and nothing is kept for an unknown one.
import { changeSignal } from '../../db/change-signals';

/** Raised when a public client comes or goes: every app's set of origins is read again. */
export const originsChanged = changeSignal('client-origins');

/** The longest `Origin` looked up: a scheme, a DNS name of at most 253 characters and a port fit. */
const MAX_ORIGIN_LENGTH = 255;

/** Whether a header value is an origin as a browser sends it (`https://host[:port]`, nothing more). */
export function isOrigin(value: string): boolean {
  if (value.length > MAX_ORIGIN_LENGTH) return false;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

/** The origins of the http(s) redirect URIs, as a browser sends them in `Origin`. */
export function webOriginsOf(redirectUris: readonly string[]): string[] {
  const origins = redirectUris.flatMap((uri) => {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? [url.origin] : [];
  });
  return [...new Set(origins)];
}

/** A public client was registered or a client removed: every instance asks the database again. */
export function clientOriginsChanged(): Promise<void> {
  return originsChanged.raise();
}
