// PKCE (RFC 7636) for a code: a well-formed challenge and a known method; and a client without a
// secret proves with it, S256, that it is the one that started (RFC 9700 §2.1.1).
import * as clientsService from '../../clients/clients.service';
import { PKCE_METHODS, PKCE_VALUE, type PkceMethod } from '../../protocol';
import { invalid, type Check } from './check';

export const checkPkce: Check = (review) => {
  const { code_challenge: challenge, code_challenge_method: named } = review.parameters;
  if (!review.request.responseType!.split(' ').includes('code') || (!challenge && !named)) return;
  const method = named ?? 'plain';
  if (!challenge || !PKCE_VALUE.test(challenge)) return invalid('code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]');
  if (!(PKCE_METHODS as readonly string[]).includes(method))
    return invalid(`code_challenge_method must be one of ${PKCE_METHODS.join(', ')}`);
  review.request.codeChallenge = challenge;
  review.request.codeChallengeMethod = method as PkceMethod;
  return undefined;
};

export const publicClientPkce: Check = (review) =>
  clientsService.isPublic(review.client!) && review.request.codeChallengeMethod !== 'S256'
    ? invalid('Public clients must send a code_challenge with code_challenge_method=S256')
    : undefined;
