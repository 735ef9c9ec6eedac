// What a signed-in person (or nobody) gets instead of or before the consent page, and what their
// decision on it does. `prompt=login` or an expired `max_age` sends the person to sign in again; a
// client asking for the multi-factor class gets a step-up (or, made essential, access_denied for a
// person with no second factor); consent given before for these scopes answers at once (unless
// `prompt=consent`); `prompt=none` never shows a page. An approval passes the same way again.
import * as factorsService from '../../factors/factors.service';
import * as grantsService from '../grants/grants.service';
import * as claimsService from '../oidc/claims.service';
import { acrOf, MULTI_FACTOR_ACR } from '../protocol';
import { refusal, type AuthorizationRequest, type Redirect, type Refusal, type SignedIn } from './authorization-request';
import type { AuthorizeDeps } from './deps';
import { issueFor } from './issue';
import * as pushedRequests from './pushed-requests.store';
import { answer } from './response-modes';

/**
 * Whether the client asks for the multi-factor class (docs/oauth.md, Claims): as essential (the
 * `claims` parameter's `acr` with `essential: true`), as a wish (`acr_values`, or a voluntary `acr`
 * claim), or not at all.
 */
function multiFactorWanted(request: AuthorizationRequest): 'essential' | 'voluntary' | null {
  const acr = request.claims?.acr;
  if (acr?.values.includes(MULTI_FACTOR_ACR)) return acr.essential ? 'essential' : 'voluntary';
  return request.acrValues?.includes(MULTI_FACTOR_ACR) ? 'voluntary' : null;
}

/** A person signed in with one factor whose client asks for two: a step-up, or an error at the client. */
async function secondFactorOwed(
  request: AuthorizationRequest,
  person: SignedIn,
  deps: AuthorizeDeps,
): Promise<Redirect | 'step-up' | null> {
  const wanted = multiFactorWanted(request);
  if (!wanted || acrOf(person.amr) === MULTI_FACTOR_ACR) return null;
  const back = (error: string, description: string) =>
    answer(request, { error, error_description: description, state: request.state }, deps.answering);
  if (request.prompt.includes('none')) return back('interaction_required', 'prompt=none: the person would have to give a second factor');
  if (await factorsService.hasSecondFactor(person.userId)) return 'step-up';
  if (wanted === 'essential')
    return back('access_denied', 'acr 2 was essential and the person has no second factor (they can add one on their account page)');
  return null;
}

export async function beforeConsent(
  request: AuthorizationRequest,
  person: SignedIn | null,
  deps: AuthorizeDeps,
): Promise<Redirect | 'sign-in' | 'step-up' | 'consent'> {
  const age = person?.authTime ? (deps.clock.now() - person.authTime.getTime()) / 1000 : Infinity;
  const mustSignIn = !person || request.prompt.includes('login') || (request.maxAge !== undefined && age > request.maxAge);
  if (!mustSignIn) {
    const owed = await secondFactorOwed(request, person, deps);
    if (owed) return owed;
    const scope = [...request.scope, ...claimsService.scopesForClaims(request.scope, request.claims)];
    const remembered =
      !request.prompt.includes('consent') && (await grantsService.covers(deps.stores.consents, person.userId, request.client._id, scope));
    if (remembered) return issueFor(request, person, deps);
  }
  if (request.prompt.includes('none')) {
    const error = mustSignIn ? 'login_required' : 'consent_required';
    return answer(request, { error, error_description: `prompt=none: ${error}`, state: request.state }, deps.answering);
  }
  return mustSignIn ? 'sign-in' : 'consent';
}

/**
 * The person's decision on the request the consent page showed, reviewed again just now: a denial
 * tells the client (and uses up a pushed request); an approval goes through what the page did
 * (prompt, max_age, acr), so what changed since is not skipped, then is remembered and answered.
 */
export async function decide(
  request: AuthorizationRequest,
  decision: unknown,
  person: SignedIn,
  deps: AuthorizeDeps,
): Promise<Redirect | Refusal | 'sign-in' | 'step-up'> {
  if (decision === 'deny') {
    if (request.pushedUri) await pushedRequests.take(request.pushedUri);
    return answer(request, { error: 'access_denied', error_description: 'The user denied access', state: request.state }, deps.answering);
  }
  if (decision !== 'approve') return refusal('Invalid decision', 'Choose Approve or Deny.');
  const next = await beforeConsent(request, person, deps);
  if (next !== 'consent') return next;
  await grantsService.remember(deps.stores.consents, person.userId, request.client._id, request.scope);
  return issueFor(request, person, deps);
}
