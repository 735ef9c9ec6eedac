// The client a browser's request names (RFC 6749 §4.1.2.1: an unknown one is refused on a page, never
// by a redirect), from the client registry. (At PAR and the device endpoint the client authenticated.)
import { refusal } from '../authorization-request';
import { developerDetail, type Check } from './check';

export const checkClient: Check = async (review, { stores, config }) => {
  const clientId = review.parameters.client_id;
  let reason: string | undefined;
  const client = clientId ? await stores.clients.find(clientId, (why) => (reason = why)) : null;
  if (client) {
    review.client = review.request.client = client;
    return;
  }
  return refusal(
    'Unknown application',
    'The application that sent you here is not registered with this server.' +
      developerDetail(
        config,
        !clientId
          ? '(The request has no client_id.)'
          : `(client_id "${clientId.slice(0, 200)}" ${reason ? `names a metadata document this server refused: ${reason}` : 'is not a registered client'}.)`,
      ),
  );
};
