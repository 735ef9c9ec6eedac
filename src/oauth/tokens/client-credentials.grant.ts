// grant_type=client_credentials (RFC 6749 §4.4): the client acts for itself, so the token has no
// person and comes without a refresh token.
import { OAuthErrorResponse } from '../oauth.errors';
import { grantedScope, SCOPE_ERROR } from '../protocol';
import { issue } from './issuing.service';
import type { GrantHandler } from './token-request';

export const clientCredentialsGrant: GrantHandler = async ({ client, parameters, lifetimes, proof }) => {
  const scope = grantedScope(parameters.scope);
  if (!scope) throw new OAuthErrorResponse('invalid_scope', SCOPE_ERROR);
  return issue({ client, person: null, scope, grantType: 'client_credentials', refreshToken: false, jkt: proof?.jkt }, lifetimes);
};
