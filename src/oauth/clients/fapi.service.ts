// Which clients get the FAPI 2.0 Security Profile's rules (docs/oauth.md, FAPI 2.0): those registered
// with `fapi_profile`. The rules themselves sit where each step is checked, each naming this.
import { DPOP_ALGORITHMS, FAPI_ALGORITHMS, FAPI_SIGNING_ALGORITHM, type SigningAlgorithm } from '../protocol';
import type { ClientDocument } from './clients.model';

export const isFapi = (client: Pick<ClientDocument, 'metadata'>): boolean => client.metadata?.fapi_profile !== undefined;

/** FAPI 2.0 Message Signing too: signed request objects at PAR, signed authorization responses. */
export const isMessageSigning = (client: Pick<ClientDocument, 'metadata'>): boolean =>
  client.metadata?.fapi_profile === 'fapi2-message-signing';

/** RFC 9101 §10.5: its authorization requests must come as signed request objects (Message Signing's always do). */
export const requiresSignedRequestObject = (client: Pick<ClientDocument, 'metadata'>): boolean =>
  client.metadata?.require_signed_request_object === true || isMessageSigning(client);

/** The DPoP proof algorithms a client may use: FAPI 2.0 §5.4.1 rules out RS256 for its clients. */
export const dpopAlgorithmsFor = (client: Pick<ClientDocument, 'metadata'>): readonly string[] =>
  isFapi(client) ? DPOP_ALGORITHMS.filter((alg) => (FAPI_ALGORITHMS as readonly string[]).includes(alg)) : DPOP_ALGORITHMS;

/** How a JWT access token for this client is signed: the resource's algorithm, or ES256 for a FAPI 2.0 client (§5.4.1). */
export const accessTokenAlgorithmFor = (client: Pick<ClientDocument, 'metadata'>, resourceAlgorithm: SigningAlgorithm): SigningAlgorithm =>
  isFapi(client) ? FAPI_SIGNING_ALGORITHM : resourceAlgorithm;
