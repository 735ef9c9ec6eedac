// JARM (JWT Secured Authorization Response Mode): every value, errors included, signed for the client
// with its authorization_signed_response_alg into one `response` parameter, carried as the plain mode
// would carry it (query.jwt, fragment.jwt, form_post.jwt).
import type { SigningAlgorithm } from '../../protocol';
import type { Carrier, ResponseModeHandler } from './index';

/** Signs an authorization response for a client (id-tokens.service.ts signAuthorizationResponse). */
export type ResponseSigner = (values: Record<string, string>, clientId: string, algorithm?: SigningAlgorithm) => Promise<string>;

export const signed =
  (carrier: Carrier): ResponseModeHandler =>
  async ({ redirectUri, client }, values, { sign }) => {
    const present = Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined));
    return carrier(redirectUri, [['response', await sign(present, client._id, client.metadata?.authorization_signed_response_alg)]]);
  };
