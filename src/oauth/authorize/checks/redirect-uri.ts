// The redirect URI (RFC 6749 §3.1.2, RFC 9700 §2.1): one of the client's registered ones as the same
// string (a loopback IP's port aside, RFC 8252 §7.3), or the only one when the request names none. Any
// other is refused on a page of ours: an address the client did not register is never sent anything.
import * as clientsService from '../../clients/clients.service';
import { refusal } from '../authorization-request';
import { developerDetail, type Check } from './check';

export const checkRedirectUri: Check = (review, { config }) => {
  const client = review.client!;
  const named = review.parameters.redirect_uri;
  const registered = clientsService.redirectUrisOf(client);
  const redirectUri =
    named === undefined ? (registered.length === 1 ? registered[0] : null) : clientsService.registeredRedirectUri(client, named);
  if (redirectUri) {
    review.request.redirectUri = redirectUri;
    return;
  }
  // A request object that could not be read may be why no redirect URI is known.
  if (review.objectRefused) {
    const { error, description } = review.objectRefused;
    return refusal('Invalid request object', `${client.name} sent a request that cannot be read (${error}): ${description}`, error);
  }
  return refusal(
    'Invalid redirect address',
    'The application asked to send you to an address it has not registered, so you were not sent there.' +
      developerDetail(
        config,
        `(${named === undefined ? 'No redirect_uri was sent, and the client has several' : `Sent: ${named.slice(0, 300)}`}. ` +
          `Registered for ${client._id}: ${registered.join(', ')}. The redirect_uri must be one of them exactly.)`,
      ),
  );
};
