// What every grant of the token endpoint is handed once the client is authenticated.
import * as usersService from '../../users/users.service';
import type { UserRecord } from '../../users/users.types';
import type { ClientDocument } from '../clients/clients.model';
import { invalidGrant, invalidRequest, OAuthErrorResponse } from '../oauth.errors';
import type { CheckedProof } from '../dpop/dpop.service';
import type { OAuthParameters } from '../oauth.parameters';
import type { IdTokenSigner, IssuedToken, Lifetimes } from './issuing.service';

export interface TokenRequest {
  /** Authenticated, read once for the whole request. */
  client: ClientDocument;
  parameters: OAuthParameters;
  /** The client address, for the sign-in budget of the password grant. */
  address: string;
  lifetimes: Lifetimes;
  /** null on the endpoint that gives no ID tokens. */
  idTokens: IdTokenSigner | null;
  /** The request's DPoP proof (RFC 9449), checked: what the tokens issued are bound to. */
  proof: CheckedProof | null;
}

/** RFC 9449 §5 and §10: a grant bound to a key needs a proof by that key. */
export function ensureProofBy(jkt: string | undefined, proof: CheckedProof | null, what: string): void {
  if (jkt === undefined) return;
  if (!proof) throw new OAuthErrorResponse('invalid_dpop_proof', `${what} is bound to a DPoP key: send a DPoP proof made with it`);
  if (proof.jkt !== jkt) throw new OAuthErrorResponse('invalid_dpop_proof', `${what} is bound to another DPoP key`);
}

/** One grant type: a request in, an issued token out (or an RFC 6749 error thrown). */
export type GrantHandler = (request: TokenRequest) => Promise<IssuedToken>;

/** A parameter the grant cannot do without (RFC 6749 §5.2 invalid_request). */
export function required(parameters: OAuthParameters, name: string): string {
  const value = parameters[name];
  if (value === undefined) throw invalidRequest(`Missing parameter: ${name}`);
  return value;
}

/** The person a grant acts for, as they are now; a deleted one makes the grant invalid. */
export async function personOf(userId: string): Promise<UserRecord> {
  const person = await usersService.findById(userId);
  if (!person) throw invalidGrant('The user of this grant no longer exists');
  return person;
}
