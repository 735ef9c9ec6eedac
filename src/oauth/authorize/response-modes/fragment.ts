// response_mode=fragment (OAuth 2.0 Multiple Response Types §2.1): the values in the fragment, where
// tokens go, never in a query a server would log.
import type { Carrier } from './mode';

export const fragment: Carrier = (redirectUri, entries) => {
  const url = new URL(redirectUri);
  url.hash = new URLSearchParams(entries).toString();
  return { kind: 'redirect', location: url.toString() };
};
