// grant_type=password (RFC 6749 §4.3), for clients an operator trusts with it: the scope is checked
// first (a refused request costs no password check), then the person's email and password go through
// the one password verifier, with its sign-in budget.
import type { PasswordVerifier } from '../../auth/auth.service';
import { invalidGrant } from '../oauth.errors';
import { withIdToken } from './issuing.service';
import { personOf, requestedScope, required, resourceOf, type GrantHandler } from './token-request';

export function createPasswordGrant(verifyPassword: PasswordVerifier): GrantHandler {
  return async (request) => {
    const { client, parameters, address, lifetimes, idTokens, proof, issue } = request;
    const username = required(parameters, 'username');
    const password = required(parameters, 'password');
    const resource = await resourceOf(request);
    const scope = requestedScope(parameters, resource);
    const userId = await verifyPassword({ email: username, password, address });
    if (!userId) throw invalidGrant('The username or password is wrong');
    const person = await personOf(userId);
    const issued = await issue({ client, person, scope, grantType: 'password', refreshToken: true, jkt: proof?.jkt, resource }, lifetimes);
    return withIdToken(idTokens, issued, client, {});
  };
}
