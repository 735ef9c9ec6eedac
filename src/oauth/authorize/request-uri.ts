// Request objects by reference (OIDC Core §6.2): `request_uri` names a document holding the request
// object, at an address the client registered in `request_uris` (discovery says
// require_request_uri_registration). It is fetched through the guarded fetcher (https to public
// addresses only in production, no redirects, at most LIMITS.requestObjectLength bytes, 3 s), and
// the fetches one client's requests from one address cause are bounded
// (RATE_LIMIT_REQUEST_URI_PER_CLIENT_AND_ADDRESS per 15 minutes). Anyone may start a request with any
// client's id, so no budget is the client's alone: one would let anyone use it up (issue 48, finding 2).
import type { Config } from '../../config';
import { guardedFetch, GuardedFetchError } from '../../common/guarded-fetch';
import { limitRule, reserve, TooManyRequestsError } from '../../common/rate-limit';
import type { ClientDocument } from '../clients/clients.model';
import { LIMITS } from '../protocol';

/** The media types a request object is served as (RFC 9101 §10.2, and plain JWTs). */
const REQUEST_OBJECT_TYPES = 'application/oauth-authz-req+jwt, application/jwt';

/** A URI without its fragment: the fragment is the client's (a hash of the content, or anything), never sent. */
const withoutFragment = (uri: string): string => uri.split('#', 1)[0];

/** Whether the client registered this request URI (compared without fragments). */
export function isRegisteredRequestUri(client: ClientDocument, uri: string): boolean {
  const wanted = withoutFragment(uri);
  return (client.metadata?.request_uris ?? []).some((registered) => withoutFragment(registered) === wanted);
}

/** The request object at the client's `request_uri`, or why it cannot be had (an `invalid_request_uri`). */
export async function fetchRequestObject(
  config: Config,
  client: ClientDocument,
  uri: string,
  /** The client address the authorization request came from. */
  address: string,
): Promise<{ jwt: string } | { refused: string }> {
  if (!isRegisteredRequestUri(client, uri)) return { refused: 'request_uri is not one of the request_uris this client registered' };
  if (config.rateLimits) {
    try {
      const rule = limitRule('request-uri:client+address', config.limits.requestUriFetchesPerClientAndAddress);
      await reserve([{ rule, key: `${client._id}|${address}` }]);
    } catch (err) {
      if (err instanceof TooManyRequestsError)
        return { refused: `too many request objects fetched for this client from this address: try again in ${err.retryAfterSeconds} s` };
      throw err;
    }
  }
  let body: string;
  try {
    body = await guardedFetch(withoutFragment(uri), {
      allowPrivate: !config.isProduction,
      maxBytes: LIMITS.requestObjectLength,
      timeoutMs: LIMITS.requestUriFetchTimeoutMs,
      accept: REQUEST_OBJECT_TYPES,
    });
  } catch (err) {
    if (err instanceof GuardedFetchError) return { refused: `the request object could not be fetched (${err.message})` };
    throw err;
  }
  const jwt = body.trim();
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(jwt) ? { jwt } : { refused: 'the document at request_uri is not a JWT' };
}
