// Approved (now, or remembered): back to the client with what the response type asks for, a code, an
// access token, an ID token (the hybrid flow: a code and more). A pushed request answers once: of two
// browsers (or tabs) finishing it, one gets the code.
import * as usersService from '../../users/users.service';
import type { UserRecord } from '../../users/users.types';
import { isFapi } from '../clients/fapi.service';
import * as claimsService from '../oidc/claims.service';
import { FAPI_CODE_LIFETIME_SECONDS } from '../protocol';
import * as codesService from '../tokens/codes.service';
import { implicitResponse, type IssuedToken } from '../tokens/issuing.service';
import type { AuthorizationRequest, Redirect, SignedIn } from './authorization-request';
import type { AuthorizeDeps } from './deps';
import * as pushedRequests from './pushed-requests.store';
import { answer } from './response-modes';

function issueCode(request: AuthorizationRequest, signedIn: SignedIn): Promise<string> {
  return codesService.issue(
    {
      clientId: request.client._id,
      userId: signedIn.userId,
      redirectUri: request.redirectUri,
      scope: request.scope,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      nonce: request.nonce,
      authTime: signedIn.authTime,
      amr: signedIn.amr,
      sid: signedIn.sid,
      claims: request.claims,
      dpopJkt: request.dpopJkt,
      resource: request.resource?.id,
    },
    isFapi(request.client) ? FAPI_CODE_LIFETIME_SECONDS : undefined,
  );
}

/** The implicit flow's access token (variant A's lifetime: seed 001 names the implicit grant there). */
function issueToken(request: AuthorizationRequest, signedIn: SignedIn, person: UserRecord, deps: AuthorizeDeps): Promise<IssuedToken> {
  const decision = {
    client: request.client,
    person,
    scope: request.scope,
    grantType: 'implicit',
    refreshToken: false,
    authTime: signedIn.authTime,
    amr: signedIn.amr,
    claims: request.claims,
    resource: request.resource,
  };
  return deps.issue(decision, {
    accessToken: deps.config.oauth.v1AccessTokenLifetime,
    refreshToken: deps.config.oauth.refreshTokenLifetime,
  });
}

/** The ID token of the front channel: its at_hash and c_hash tie it to the access token and code beside it (OIDC Core §3.3.2.11). */
function signIdToken(
  request: AuthorizationRequest,
  signedIn: SignedIn,
  person: UserRecord,
  made: { accessToken?: string; code?: string },
  deps: AuthorizeDeps,
) {
  // Without an access token there is no userinfo to ask: the scopes' claims go in the ID token (OIDC Core §5.4).
  const scopeClaims =
    request.responseType === 'id_token' ? claimsService.scopeClaims(request.scope) : claimsService.idTokenScopeClaims(request.scope);
  return deps.idTokens.sign({
    user: person,
    clientId: request.client._id,
    algorithm: request.client.metadata?.id_token_signed_response_alg,
    claims: [...scopeClaims, ...(request.claims?.id_token ?? [])],
    authTime: signedIn.authTime,
    amr: signedIn.amr,
    sid: signedIn.sid,
    nonce: request.nonce,
    ...made,
  });
}

export async function issueFor(request: AuthorizationRequest, signedIn: SignedIn, deps: AuthorizeDeps): Promise<Redirect> {
  const back = (values: Record<string, string | undefined>) => answer(request, { ...values, state: request.state }, deps.answering);
  if (request.pushedUri && !(await pushedRequests.take(request.pushedUri))) {
    return back({ error: 'invalid_request_uri', error_description: 'the pushed request was used already' });
  }
  if (signedIn.sid) await deps.backchannel.granted(signedIn.sid, signedIn.userId, request.client);
  const parts = new Set(request.responseType.split(' '));
  const code = parts.has('code') ? await issueCode(request, signedIn) : undefined;
  if (request.responseType === 'code') return back({ code });
  const person = await usersService.findById(signedIn.userId);
  if (!person) return back({ error: 'login_required' });
  const issued = parts.has('token') ? await issueToken(request, signedIn, person, deps) : null;
  const idToken = parts.has('id_token')
    ? await signIdToken(request, signedIn, person, { accessToken: issued?.accessToken, code }, deps)
    : undefined;
  return back({ code, ...implicitResponse(issued, idToken, request.responseType === 'token') });
}
