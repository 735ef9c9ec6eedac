// What a signed-in person (or nobody) gets instead of or before the consent page, and what their
// decision on it does, as the sign-in policy says (nextPrompt): `prompt=login` or an expired `max_age`
// sends the person to sign in again; a client asking for the multi-factor class gets a step-up (or,
// made essential, access_denied for a person with no second factor); consent given before for these
// scopes answers at once (unless `prompt=consent`); `prompt=none` never shows a page. An approval
// passes the same way again.
import * as factorsService from '../../factors/factors.service';
import { FACTOR_RULES } from '../../factors/factors.service';
import { nextPrompt, type Facts, type InteractionAsk } from '../../sign-in/prompt-policy.service';
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

/** What the client is told when `prompt=none` (or an essential acr) leaves nothing to show. */
const SILENT_ERRORS = {
  login_required: 'prompt=none: login_required',
  consent_required: 'prompt=none: consent_required',
  interaction_required: 'prompt=none: the person would have to give a second factor',
  access_denied: 'acr 2 was essential and the person has no second factor (they can add one on their account page)',
} as const;

/**
 * The interaction's policy (sign-in/prompt-policy.service.ts) for an authorization request: the code
 * (or tokens) when nothing more is owed, the client told when nothing may be shown, else the page
 * the person goes to. A second factor or a consent is read only when the answer depends on it.
 */
export async function beforeConsent(
  request: AuthorizationRequest,
  person: SignedIn | null,
  deps: AuthorizeDeps,
): Promise<Redirect | 'sign-in' | 'step-up' | 'consent'> {
  const ask: InteractionAsk = { prompt: request.prompt, maxAge: request.maxAge, multiFactor: multiFactorWanted(request), consent: true };
  const session = person && {
    userId: person.userId,
    authTime: person.authTime?.getTime(),
    multiFactor: acrOf(person.amr) === MULTI_FACTOR_ACR,
  };
  const facts: Facts = {};
  const reads: Record<keyof Facts, () => Promise<boolean>> = {
    // The session's person is active (sessionPerson): the policy asks this only of someone signing in.
    accountActive: () => Promise.resolve(true),
    hasSecondFactor: () => factorsService.hasSecondFactor(person!.userId),
    consentRemembered: () => {
      const scope = [...request.scope, ...claimsService.scopesForClaims(request.scope, request.claims)];
      return grantsService.covers(deps.stores.consents, person!.userId, request.client._id, scope);
    },
  };
  // Each read answers one fact for good: at most two rounds ask for one.
  for (let round = 0; round <= Object.keys(reads).length; round++) {
    const prompt = nextPrompt(ask, session, facts, deps.clock.now(), { freshMs: FACTOR_RULES.freshSignInMs });
    switch (prompt.name) {
      case 'need':
        facts[prompt.fact] = await reads[prompt.fact]();
        continue;
      case 'done':
        return issueFor(request, person!, deps);
      case 'error':
        return answer(
          request,
          { error: prompt.error, error_description: SILENT_ERRORS[prompt.error], state: request.state },
          deps.answering,
        );
      case 'step-up':
        return 'step-up';
      case 'consent':
        return 'consent';
      default:
        // login; nothing is owed here from an earlier step (those prompts belong to /login's pages).
        return 'sign-in';
    }
  }
  throw new Error('the sign-in policy asked for a fact it was given');
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
