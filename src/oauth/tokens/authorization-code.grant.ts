// grant_type=authorization_code (RFC 6749 §4.1.3, PKCE per RFC 7636, OpenID Connect Core §3.1.3).
// The story: find the code, check it belongs to this client and is live, use it up (the one use
// that counts: a replay finds it gone and revokes what the first use issued), check the PKCE
// verifier and the redirect_uri, then issue for the person with their ID token.
import { sha256 } from '../../common/crypto';
import { invalidGrant } from '../oauth.errors';
import { withIdToken } from './issuing.service';
import { verifyPkce } from './pkce';
import { ensureProofBy, personOf, required, resourceOf, type GrantHandler } from './token-request';
import * as tokensDao from './tokens.dao';

const INVALID_CODE = 'The authorization code is invalid, expired or was already used';

/**
 * A code is used up by writing its marker (`code:<hash>`, a unique insert: of exchanges racing on
 * any number of instances exactly one writes it), which is remembered this long: a replay within it
 * revokes what the code issued (RFC 6749 §4.1.2). A code never issued here, or used longer ago,
 * costs reads by `_id` and revokes nothing: no request can make the server search the tokens by
 * family unless the code was really used (issue 54).
 */
const USED_CODE_MEMORY_MS = 24 * 3600_000;
const usedCodeMarker = (hash: string) => `code:${hash}`;

export const authorizationCodeGrant: GrantHandler = async (request) => {
  const { client, parameters, lifetimes, idTokens, proof, issue } = request;
  const hash = sha256(required(parameters, 'code'));
  const code = await tokensDao.findCode(hash);
  if (!code) {
    // A code's family is its own hash: a used code presented again revokes everything it issued.
    if (await tokensDao.findSpent(usedCodeMarker(hash))) await tokensDao.deleteFamily(hash);
    throw invalidGrant(INVALID_CODE);
  }
  // Another client's code is answered like an unknown one, and stays usable by its own client.
  if (code.clientId !== client._id || code.expiresAt <= new Date()) throw invalidGrant(INVALID_CODE);
  // A wrong resource is refused before the code is used up, so the right request can follow.
  const resource = await resourceOf(request, code);
  if (!(await tokensDao.markSpent(usedCodeMarker(hash), hash, new Date(Date.now() + USED_CODE_MEMORY_MS)))) {
    await tokensDao.deleteFamily(hash);
    throw invalidGrant(INVALID_CODE);
  }
  // Checked after the code is used up, so a wrong verifier (or key) cannot be retried against the same code.
  verifyPkce(code.codeChallenge, code.codeChallengeMethod, parameters.code_verifier);
  ensureProofBy(code.dpopJkt, proof, 'The authorization code');
  const redirectUri = required(parameters, 'redirect_uri');
  // RFC 6749 §4.1.3 and §5.2: the same string the authorization request sent, else invalid_grant.
  if (redirectUri !== code.redirectUri) {
    throw invalidGrant('redirect_uri differs from the one of the authorization request');
  }
  const person = await personOf(code.userId);
  const issued = await issue(
    {
      client,
      person,
      scope: code.scope,
      grantType: 'authorization_code',
      refreshToken: true,
      familyId: hash,
      authTime: code.authTime,
      amr: code.amr,
      claims: code.claims,
      sid: code.sid,
      jkt: proof?.jkt,
      resource,
    },
    lifetimes,
  );
  return withIdToken(idTokens, issued, client, {
    authTime: code.authTime,
    amr: code.amr,
    nonce: code.nonce,
    claims: code.claims,
    sid: code.sid,
  });
};
