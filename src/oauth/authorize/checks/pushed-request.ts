// Pushed authorization requests (RFC 9126 §4): what the client pushed is the request, found by its
// request_uri (bound to the client, within its lifetime); and a client, or the server, that requires
// pushing has plain requests refused (§5, §6).
import { ENDPOINTS, PUSHED_REQUEST_URI_PREFIX } from '../../protocol';
import * as pushedRequests from '../pushed-requests.store';
import { invalid, type Check } from './check';

/** A request_uri of a pushed request: its parameters become the request's. */
export const openPushedRequest: Check = async (review, { clock }) => {
  const uri = review.parameters.request_uri;
  if (!uri?.startsWith(PUSHED_REQUEST_URI_PREFIX)) return;
  const stored = await pushedRequests.open(review.client!._id, uri, new Date(clock.now()));
  if (!stored) {
    review.pushedUnknown = uri;
    return;
  }
  review.parameters = stored;
  review.pushedUri = uri;
  review.request.pushedUri = uri;
};

/** A pushed request_uri that named nothing (told once the redirect URI is known). */
export const knownPushedRequest: Check = (review) =>
  review.pushedUnknown === undefined
    ? undefined
    : { error: 'invalid_request_uri', description: 'the pushed request is not known for this client, has expired or was used' };

/** OAUTH_REQUIRE_PAR, or the client's require_pushed_authorization_requests: plain requests are refused. */
export const requirePushed: Check = (review, { config }) => {
  if (review.pushedUri !== undefined) return;
  if (!config.oauth.requirePushedRequests && !review.client!.metadata?.require_pushed_authorization_requests) return;
  return invalid(`authorization requests must be pushed first (${ENDPOINTS.pushedAuthorization}, RFC 9126)`);
};
