// PKCE (RFC 7636 §4.6): the code_verifier sent with the exchange must match the challenge the
// authorization request carried; compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { invalidGrant, invalidRequest } from '../oauth.errors';
import { PKCE_VALUE } from '../protocol';

export function verifyPkce(challenge: string | undefined, method: string | undefined, verifier: string | undefined): void {
  if (!challenge) {
    // A verifier for a code that had no challenge is a client confused about which code it holds.
    if (verifier !== undefined) throw invalidGrant('This code was issued without a code_challenge');
    return;
  }
  if (verifier === undefined) throw invalidGrant('Missing parameter: code_verifier');
  if (!PKCE_VALUE.test(verifier)) throw invalidRequest('code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]');
  const derived = Buffer.from(method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier);
  const expected = Buffer.from(challenge);
  if (derived.length !== expected.length || !timingSafeEqual(derived, expected)) throw invalidGrant('The code_verifier does not match');
}
