// JARM (JWT Secured Authorization Response Mode): every value, errors included, signed for the client
// with its authorization_signed_response_alg into one `response` parameter, carried as the plain mode
// would carry it (query.jwt, fragment.jwt, form_post.jwt).
import { present, type Carrier, type ResponseModeHandler } from './mode';

export const signed =
  (carrier: Carrier): ResponseModeHandler =>
  async ({ redirectUri, client }, values, { sign }) => {
    const response = await sign(Object.fromEntries(present(values)), client._id, client.metadata?.authorization_signed_response_alg);
    return carrier(redirectUri, [['response', response]]);
  };
