// grant_type=client_credentials (RFC 6749 §4.4): the client acts for itself, so the token has no
// person and comes without a refresh token. Named for a resource that takes JWT access tokens, it is
// signed and not written anywhere.
import { ADMIN_SCOPE } from '../protocol';
import { requestedScope, resourceOf, type GrantHandler } from './token-request';

export const clientCredentialsGrant: GrantHandler = async (request) => {
  const { client, parameters, lifetimes, proof, issue } = request;
  const resource = await resourceOf(request);
  // The admin scope is for the admin API (this server's own) and only for clients the operator allowed.
  const operator = client.operatorAccess === true && (!resource || resource.own);
  const scope = requestedScope(parameters, resource, operator ? [ADMIN_SCOPE] : []);
  return issue({ client, person: null, scope, grantType: 'client_credentials', refreshToken: false, jkt: proof?.jkt, resource }, lifetimes);
};
