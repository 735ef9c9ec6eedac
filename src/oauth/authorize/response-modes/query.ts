// response_mode=query (RFC 6749 §4.1.2): the values in the redirect URI's query, its own kept.
import type { Carrier } from './mode';

export const query: Carrier = (redirectUri, entries) => {
  const url = new URL(redirectUri);
  for (const [name, value] of entries) url.searchParams.set(name, value);
  return { kind: 'redirect', location: url.toString() };
};
